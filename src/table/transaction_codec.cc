// The transaction codec (transaction.h): the Transaction message <-> the C++ model. The only
// place a transaction is parsed or serialized.
#include <fmt/format.h>

#include "lance/table/transaction.h"
#include "table/proto_codec.h"
#include "table/proto/transaction.pb.h"

namespace lance::table {

namespace {

using PbTxn = pb::Transaction;
using internal::SetUnknownFields;
using internal::UnknownFieldsOf;

// --- decoding -------------------------------------------------------------------------------

Result<std::vector<FragmentInfo>> Fragments(
    const google::protobuf::RepeatedPtrField<pb::DataFragment>& in, const std::string& what) {
  std::vector<FragmentInfo> out;
  out.reserve(static_cast<size_t>(in.size()));
  for (const auto& f : in) {
    LANCE_ASSIGN_OR_RAISE(FragmentInfo fr, internal::FragmentFromProto(f, what, /*validate=*/false));
    out.push_back(std::move(fr));
  }
  return out;
}

std::vector<file::LanceField> Fields(const google::protobuf::RepeatedPtrField<::lance::file::Field>& in) {
  std::vector<file::LanceField> out;
  out.reserve(static_cast<size_t>(in.size()));
  for (const auto& f : in) out.push_back(internal::FieldFromProto(f));
  return out;
}

std::vector<std::pair<std::string, std::string>> SortedPairs(
    const google::protobuf::Map<std::string, std::string>& in) {
  std::vector<std::pair<std::string, std::string>> out(in.begin(), in.end());
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<IndexInfo>> Indices(const google::protobuf::RepeatedPtrField<pb::IndexMetadata>& in,
                                       const std::string& what) {
  std::vector<IndexInfo> out;
  for (const auto& x : in) {
    LANCE_ASSIGN_OR_RAISE(IndexInfo info, internal::IndexFromProto(x, what));
    out.push_back(std::move(info));
  }
  return out;
}

UpdateMap UpdateMapFromProto(const PbTxn::UpdateMap& in) {
  UpdateMap m;
  for (const auto& e : in.update_entries()) {
    UpdateMapEntry entry{e.key(), std::nullopt, UnknownFieldsOf(e)};
    if (e.has_value()) entry.value = e.value();
    m.entries.push_back(std::move(entry));
  }
  m.replace = in.replace();
  m.unknown_fields = UnknownFieldsOf(in);
  return m;
}

Result<Transaction::Operation> OperationFromProto(const PbTxn& t, const std::string& what) {
  switch (t.operation_case()) {
    case PbTxn::kAppend: {
      Transaction::Append op;
      LANCE_ASSIGN_OR_RAISE(op.fragments, Fragments(t.append().fragments(), what));
      op.unknown_fields = UnknownFieldsOf(t.append());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kDelete: {
      const auto& d = t.delete_();
      Transaction::Delete op;
      LANCE_ASSIGN_OR_RAISE(op.updated_fragments, Fragments(d.updated_fragments(), what));
      op.deleted_fragment_ids.assign(d.deleted_fragment_ids().begin(), d.deleted_fragment_ids().end());
      op.predicate = d.predicate();
      op.unknown_fields = UnknownFieldsOf(d);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kOverwrite: {
      const auto& o = t.overwrite();
      Transaction::Overwrite op;
      LANCE_ASSIGN_OR_RAISE(op.fragments, Fragments(o.fragments(), what));
      op.schema = Fields(o.schema());
      op.schema_metadata = SortedPairs(o.schema_metadata());
      op.config_upsert_values.insert(o.config_upsert_values().begin(), o.config_upsert_values().end());
      for (const auto& b : o.initial_bases()) op.initial_bases.push_back(internal::BasePathFromProto(b));
      op.unknown_fields = UnknownFieldsOf(o);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kCreateIndex: {
      const auto& c = t.create_index();
      Transaction::CreateIndex op;
      LANCE_ASSIGN_OR_RAISE(op.new_indices, Indices(c.new_indices(), what));
      LANCE_ASSIGN_OR_RAISE(op.removed_indices, Indices(c.removed_indices(), what));
      op.unknown_fields = UnknownFieldsOf(c);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kRewrite: {
      const auto& r = t.rewrite();
      Transaction::Rewrite op;
      LANCE_ASSIGN_OR_RAISE(op.old_fragments, Fragments(r.old_fragments(), what));
      LANCE_ASSIGN_OR_RAISE(op.new_fragments, Fragments(r.new_fragments(), what));
      for (const auto& g : r.groups()) {
        Transaction::RewriteGroup group;
        LANCE_ASSIGN_OR_RAISE(group.old_fragments, Fragments(g.old_fragments(), what));
        LANCE_ASSIGN_OR_RAISE(group.new_fragments, Fragments(g.new_fragments(), what));
        group.unknown_fields = UnknownFieldsOf(g);
        op.groups.push_back(std::move(group));
      }
      for (const auto& x : r.rewritten_indices()) {
        Transaction::RewrittenIndex ri;
        if (x.has_old_id()) {
          LANCE_ASSIGN_OR_RAISE(ri.old_id, internal::UuidFromBytes(x.old_id().uuid(), what));
        }
        if (x.has_new_id()) {
          LANCE_ASSIGN_OR_RAISE(ri.new_id, internal::UuidFromBytes(x.new_id().uuid(), what));
        }
        ri.has_new_index_details = x.has_new_index_details();
        ri.new_index_details_type_url = x.new_index_details().type_url();
        ri.new_index_details = x.new_index_details().value();
        ri.new_index_version = x.new_index_version();
        for (const auto& f : x.new_index_files()) ri.new_index_files.push_back(internal::IndexFileFromProto(f));
        ri.unknown_fields = UnknownFieldsOf(x);
        op.rewritten_indices.push_back(std::move(ri));
      }
      op.unknown_fields = UnknownFieldsOf(r);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kMerge: {
      const auto& m = t.merge();
      Transaction::Merge op;
      LANCE_ASSIGN_OR_RAISE(op.fragments, Fragments(m.fragments(), what));
      op.schema = Fields(m.schema());
      op.schema_metadata = SortedPairs(m.schema_metadata());
      op.preserves_nullability = m.preserves_nullability();
      op.unknown_fields = UnknownFieldsOf(m);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kRestore: {
      Transaction::Restore op;
      op.version = t.restore().version();
      op.unknown_fields = UnknownFieldsOf(t.restore());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kReserveFragments: {
      Transaction::ReserveFragments op;
      op.num_fragments = t.reserve_fragments().num_fragments();
      op.unknown_fields = UnknownFieldsOf(t.reserve_fragments());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kUpdate: {
      const auto& u = t.update();
      Transaction::Update op;
      op.removed_fragment_ids.assign(u.removed_fragment_ids().begin(), u.removed_fragment_ids().end());
      LANCE_ASSIGN_OR_RAISE(op.updated_fragments, Fragments(u.updated_fragments(), what));
      LANCE_ASSIGN_OR_RAISE(op.new_fragments, Fragments(u.new_fragments(), what));
      op.fields_modified.assign(u.fields_modified().begin(), u.fields_modified().end());
      op.compacted_sstables.assign(u.compacted_sstables().begin(), u.compacted_sstables().end());
      op.fields_for_preserving_frag_bitmap.assign(u.fields_for_preserving_frag_bitmap().begin(),
                                                  u.fields_for_preserving_frag_bitmap().end());
      op.update_mode = u.update_mode();
      if (u.has_inserted_rows()) op.inserted_rows = u.inserted_rows();
      for (const auto& [id, list] : u.updated_fragment_offsets()) {
        op.updated_fragment_offsets[id].assign(list.values().begin(), list.values().end());
      }
      op.updated_fragment_offset_bitmaps.insert(u.updated_fragment_offset_bitmaps().begin(),
                                                u.updated_fragment_offset_bitmaps().end());
      op.unknown_fields = UnknownFieldsOf(u);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kProject: {
      Transaction::Project op;
      op.schema = Fields(t.project().schema());
      op.preserves_nullability = t.project().preserves_nullability();
      op.unknown_fields = UnknownFieldsOf(t.project());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kUpdateConfig: {
      const auto& c = t.update_config();
      Transaction::UpdateConfig op;
      if (c.has_config_updates()) op.config_updates = UpdateMapFromProto(c.config_updates());
      if (c.has_table_metadata_updates()) op.table_metadata_updates = UpdateMapFromProto(c.table_metadata_updates());
      if (c.has_schema_metadata_updates()) {
        op.schema_metadata_updates = UpdateMapFromProto(c.schema_metadata_updates());
      }
      for (const auto& [id, m] : c.field_metadata_updates()) op.field_metadata_updates[id] = UpdateMapFromProto(m);
      op.upsert_values.insert(c.upsert_values().begin(), c.upsert_values().end());
      op.delete_keys.assign(c.delete_keys().begin(), c.delete_keys().end());
      op.schema_metadata.insert(c.schema_metadata().begin(), c.schema_metadata().end());
      for (const auto& [id, u] : c.field_metadata()) {
        Transaction::FieldMetadataUpdate f;
        f.metadata.insert(u.metadata().begin(), u.metadata().end());
        f.unknown_fields = UnknownFieldsOf(u);
        op.field_metadata[id] = std::move(f);
      }
      op.unknown_fields = UnknownFieldsOf(c);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kDataReplacement: {
      Transaction::DataReplacement op;
      for (const auto& g : t.data_replacement().replacements()) {
        Transaction::DataReplacementGroup group;
        group.fragment_id = g.fragment_id();
        if (g.has_new_file()) group.new_file = internal::DataFileFromProto(g.new_file());
        group.unknown_fields = UnknownFieldsOf(g);
        op.replacements.push_back(std::move(group));
      }
      op.unknown_fields = UnknownFieldsOf(t.data_replacement());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kUpdateMemWalState: {
      Transaction::UpdateMemWalState op;
      op.compacted_sstables.assign(t.update_mem_wal_state().compacted_sstables().begin(),
                                   t.update_mem_wal_state().compacted_sstables().end());
      op.unknown_fields = UnknownFieldsOf(t.update_mem_wal_state());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kClone: {
      const auto& c = t.clone();
      Transaction::Clone op;
      op.is_shallow = c.is_shallow();
      if (c.has_ref_name()) op.ref_name = c.ref_name();
      op.ref_version = c.ref_version();
      op.ref_path = c.ref_path();
      if (c.has_branch_name()) op.branch_name = c.branch_name();
      op.unknown_fields = UnknownFieldsOf(c);
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kUpdateBases: {
      Transaction::UpdateBases op;
      for (const auto& b : t.update_bases().new_bases()) op.new_bases.push_back(internal::BasePathFromProto(b));
      op.unknown_fields = UnknownFieldsOf(t.update_bases());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kDataOverlay: {
      Transaction::DataOverlay op;
      for (const auto& g : t.data_overlay().groups()) {
        Transaction::DataOverlayGroup group;
        group.fragment_id = g.fragment_id();
        // The overlays through a fragment: DataOverlayFile is decoded with DataFragment.
        pb::DataFragment holder;
        *holder.mutable_overlays() = g.overlays();
        LANCE_ASSIGN_OR_RAISE(FragmentInfo fr, internal::FragmentFromProto(holder, what, false));
        group.overlays = std::move(fr.overlays);
        group.unknown_fields = UnknownFieldsOf(g);
        op.groups.push_back(std::move(group));
      }
      op.unknown_fields = UnknownFieldsOf(t.data_overlay());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::kAppendFriTransitions: {
      Transaction::AppendFragmentReuseTransitions op;
      op.transitions.assign(t.append_fri_transitions().transitions().begin(),
                            t.append_fri_transitions().transitions().end());
      op.unknown_fields = UnknownFieldsOf(t.append_fri_transitions());
      return Transaction::Operation(std::move(op));
    }
    case PbTxn::OPERATION_NOT_SET:
      break;
  }
  return Transaction::Operation();
}

// --- encoding -------------------------------------------------------------------------------

void AddFragments(const std::vector<FragmentInfo>& in,
                  google::protobuf::RepeatedPtrField<pb::DataFragment>* out) {
  for (const auto& f : in) internal::FragmentToProto(f, out->Add());
}

void AddFields(const std::vector<file::LanceField>& in,
               google::protobuf::RepeatedPtrField<::lance::file::Field>* out) {
  for (const auto& f : in) internal::FieldToProto(f, out->Add());
}

Status AddIndices(const std::vector<IndexInfo>& in,
                  google::protobuf::RepeatedPtrField<pb::IndexMetadata>* out) {
  for (const auto& x : in) LANCE_RETURN_NOT_OK(internal::IndexToProto(x, out->Add()));
  return Status::OK();
}

void UpdateMapToProto(const UpdateMap& m, PbTxn::UpdateMap* out) {
  for (const auto& e : m.entries) {
    auto* entry = out->add_update_entries();
    entry->set_key(e.key);
    if (e.value) entry->set_value(*e.value);
    SetUnknownFields(e.unknown_fields, entry);
  }
  out->set_replace(m.replace);
  SetUnknownFields(m.unknown_fields, out);
}

struct OperationToProto {
  PbTxn* t;

  Status operator()(const std::monostate&) const { return Status::OK(); }
  Status operator()(const Transaction::Append& op) const {
    auto* a = t->mutable_append();
    AddFragments(op.fragments, a->mutable_fragments());
    SetUnknownFields(op.unknown_fields, a);
    return Status::OK();
  }
  Status operator()(const Transaction::Delete& op) const {
    auto* d = t->mutable_delete_();
    AddFragments(op.updated_fragments, d->mutable_updated_fragments());
    for (uint64_t id : op.deleted_fragment_ids) d->add_deleted_fragment_ids(id);
    d->set_predicate(op.predicate);
    SetUnknownFields(op.unknown_fields, d);
    return Status::OK();
  }
  Status operator()(const Transaction::Overwrite& op) const {
    auto* o = t->mutable_overwrite();
    AddFragments(op.fragments, o->mutable_fragments());
    AddFields(op.schema, o->mutable_schema());
    for (const auto& [k, v] : op.schema_metadata) (*o->mutable_schema_metadata())[k] = v;
    for (const auto& [k, v] : op.config_upsert_values) (*o->mutable_config_upsert_values())[k] = v;
    for (const auto& b : op.initial_bases) internal::BasePathToProto(b, o->add_initial_bases());
    SetUnknownFields(op.unknown_fields, o);
    return Status::OK();
  }
  Status operator()(const Transaction::CreateIndex& op) const {
    auto* c = t->mutable_create_index();
    LANCE_RETURN_NOT_OK(AddIndices(op.new_indices, c->mutable_new_indices()));
    LANCE_RETURN_NOT_OK(AddIndices(op.removed_indices, c->mutable_removed_indices()));
    SetUnknownFields(op.unknown_fields, c);
    return Status::OK();
  }
  Status operator()(const Transaction::Rewrite& op) const {
    auto* r = t->mutable_rewrite();
    AddFragments(op.old_fragments, r->mutable_old_fragments());
    AddFragments(op.new_fragments, r->mutable_new_fragments());
    for (const auto& g : op.groups) {
      auto* group = r->add_groups();
      AddFragments(g.old_fragments, group->mutable_old_fragments());
      AddFragments(g.new_fragments, group->mutable_new_fragments());
      SetUnknownFields(g.unknown_fields, group);
    }
    for (const auto& x : op.rewritten_indices) {
      auto* ri = r->add_rewritten_indices();
      if (!x.old_id.empty()) {
        LANCE_ASSIGN_OR_RAISE(std::string raw, internal::UuidToBytes(x.old_id));
        ri->mutable_old_id()->set_uuid(std::move(raw));
      }
      if (!x.new_id.empty()) {
        LANCE_ASSIGN_OR_RAISE(std::string raw, internal::UuidToBytes(x.new_id));
        ri->mutable_new_id()->set_uuid(std::move(raw));
      }
      if (x.has_new_index_details) {
        ri->mutable_new_index_details()->set_type_url(x.new_index_details_type_url);
        ri->mutable_new_index_details()->set_value(x.new_index_details);
      }
      ri->set_new_index_version(x.new_index_version);
      for (const auto& f : x.new_index_files) internal::IndexFileToProto(f, ri->add_new_index_files());
      SetUnknownFields(x.unknown_fields, ri);
    }
    SetUnknownFields(op.unknown_fields, r);
    return Status::OK();
  }
  Status operator()(const Transaction::Merge& op) const {
    auto* m = t->mutable_merge();
    AddFragments(op.fragments, m->mutable_fragments());
    AddFields(op.schema, m->mutable_schema());
    for (const auto& [k, v] : op.schema_metadata) (*m->mutable_schema_metadata())[k] = v;
    m->set_preserves_nullability(op.preserves_nullability);
    SetUnknownFields(op.unknown_fields, m);
    return Status::OK();
  }
  Status operator()(const Transaction::Restore& op) const {
    auto* r = t->mutable_restore();
    r->set_version(op.version);
    SetUnknownFields(op.unknown_fields, r);
    return Status::OK();
  }
  Status operator()(const Transaction::ReserveFragments& op) const {
    auto* r = t->mutable_reserve_fragments();
    r->set_num_fragments(op.num_fragments);
    SetUnknownFields(op.unknown_fields, r);
    return Status::OK();
  }
  Status operator()(const Transaction::Update& op) const {
    auto* u = t->mutable_update();
    for (uint64_t id : op.removed_fragment_ids) u->add_removed_fragment_ids(id);
    AddFragments(op.updated_fragments, u->mutable_updated_fragments());
    AddFragments(op.new_fragments, u->mutable_new_fragments());
    for (uint32_t f : op.fields_modified) u->add_fields_modified(f);
    for (const auto& s : op.compacted_sstables) u->add_compacted_sstables(s);
    for (uint32_t f : op.fields_for_preserving_frag_bitmap) u->add_fields_for_preserving_frag_bitmap(f);
    u->set_update_mode(op.update_mode);
    if (op.inserted_rows) u->set_inserted_rows(*op.inserted_rows);
    for (const auto& [id, values] : op.updated_fragment_offsets) {
      auto& list = (*u->mutable_updated_fragment_offsets())[id];
      for (uint32_t v : values) list.add_values(v);
    }
    for (const auto& [id, bits] : op.updated_fragment_offset_bitmaps) {
      (*u->mutable_updated_fragment_offset_bitmaps())[id] = bits;
    }
    SetUnknownFields(op.unknown_fields, u);
    return Status::OK();
  }
  Status operator()(const Transaction::Project& op) const {
    auto* p = t->mutable_project();
    AddFields(op.schema, p->mutable_schema());
    p->set_preserves_nullability(op.preserves_nullability);
    SetUnknownFields(op.unknown_fields, p);
    return Status::OK();
  }
  Status operator()(const Transaction::UpdateConfig& op) const {
    auto* c = t->mutable_update_config();
    for (const auto& [k, v] : op.upsert_values) (*c->mutable_upsert_values())[k] = v;
    for (const auto& k : op.delete_keys) c->add_delete_keys(k);
    for (const auto& [k, v] : op.schema_metadata) (*c->mutable_schema_metadata())[k] = v;
    for (const auto& [id, f] : op.field_metadata) {
      auto& u = (*c->mutable_field_metadata())[id];
      for (const auto& [k, v] : f.metadata) (*u.mutable_metadata())[k] = v;
      SetUnknownFields(f.unknown_fields, &u);
    }
    if (op.config_updates) UpdateMapToProto(*op.config_updates, c->mutable_config_updates());
    if (op.table_metadata_updates) UpdateMapToProto(*op.table_metadata_updates, c->mutable_table_metadata_updates());
    if (op.schema_metadata_updates) {
      UpdateMapToProto(*op.schema_metadata_updates, c->mutable_schema_metadata_updates());
    }
    for (const auto& [id, m] : op.field_metadata_updates) {
      UpdateMapToProto(m, &(*c->mutable_field_metadata_updates())[id]);
    }
    SetUnknownFields(op.unknown_fields, c);
    return Status::OK();
  }
  Status operator()(const Transaction::DataReplacement& op) const {
    auto* d = t->mutable_data_replacement();
    for (const auto& g : op.replacements) {
      auto* group = d->add_replacements();
      group->set_fragment_id(g.fragment_id);
      if (g.new_file) internal::DataFileToProto(*g.new_file, group->mutable_new_file());
      SetUnknownFields(g.unknown_fields, group);
    }
    SetUnknownFields(op.unknown_fields, d);
    return Status::OK();
  }
  Status operator()(const Transaction::UpdateMemWalState& op) const {
    auto* u = t->mutable_update_mem_wal_state();
    for (const auto& s : op.compacted_sstables) u->add_compacted_sstables(s);
    SetUnknownFields(op.unknown_fields, u);
    return Status::OK();
  }
  Status operator()(const Transaction::Clone& op) const {
    auto* c = t->mutable_clone();
    c->set_is_shallow(op.is_shallow);
    if (op.ref_name) c->set_ref_name(*op.ref_name);
    c->set_ref_version(op.ref_version);
    c->set_ref_path(op.ref_path);
    if (op.branch_name) c->set_branch_name(*op.branch_name);
    SetUnknownFields(op.unknown_fields, c);
    return Status::OK();
  }
  Status operator()(const Transaction::UpdateBases& op) const {
    auto* u = t->mutable_update_bases();
    for (const auto& b : op.new_bases) internal::BasePathToProto(b, u->add_new_bases());
    SetUnknownFields(op.unknown_fields, u);
    return Status::OK();
  }
  Status operator()(const Transaction::DataOverlay& op) const {
    auto* d = t->mutable_data_overlay();
    for (const auto& g : op.groups) {
      auto* group = d->add_groups();
      group->set_fragment_id(g.fragment_id);
      FragmentInfo holder;
      holder.overlays = g.overlays;
      pb::DataFragment pf;
      internal::FragmentToProto(holder, &pf);
      *group->mutable_overlays() = pf.overlays();
      SetUnknownFields(g.unknown_fields, group);
    }
    SetUnknownFields(op.unknown_fields, d);
    return Status::OK();
  }
  Status operator()(const Transaction::AppendFragmentReuseTransitions& op) const {
    auto* a = t->mutable_append_fri_transitions();
    for (const auto& s : op.transitions) a->add_transitions(s);
    SetUnknownFields(op.unknown_fields, a);
    return Status::OK();
  }
};

}  // namespace

const char* Transaction::operation_name() const {
  static const char* const kNames[] = {"unknown operation", "Append", "Delete", "Overwrite",
                                       "CreateIndex", "Rewrite", "Merge", "Restore",
                                       "ReserveFragments", "Update", "Project", "UpdateConfig",
                                       "DataReplacement", "UpdateMemWalState", "Clone",
                                       "UpdateBases", "DataOverlay",
                                       "AppendFragmentReuseTransitions"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == std::variant_size_v<Operation>);
  return kNames[operation.index()];
}

Result<Transaction> DecodeTransaction(std::string_view bytes, const std::string& what) {
  PbTxn t;
  if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("{}: the transaction ({} bytes) does not decode", what, bytes.size());
  }
  Transaction out;
  out.read_version = t.read_version();
  out.uuid = t.uuid();
  out.tag = t.tag();
  out.transaction_properties.insert(t.transaction_properties().begin(), t.transaction_properties().end());
  LANCE_ASSIGN_OR_RAISE(out.operation, OperationFromProto(t, what));
  out.unknown_fields = UnknownFieldsOf(t);
  return out;
}

Result<std::string> EncodeTransaction(const Transaction& txn) {
  PbTxn t;
  t.set_read_version(txn.read_version);
  t.set_uuid(txn.uuid);
  t.set_tag(txn.tag);
  for (const auto& [k, v] : txn.transaction_properties) (*t.mutable_transaction_properties())[k] = v;
  LANCE_RETURN_NOT_OK(std::visit(OperationToProto{&t}, txn.operation));
  SetUnknownFields(txn.unknown_fields, &t);
  return ::lance::proto::SerializeDeterministic(t);
}

}  // namespace lance::table
