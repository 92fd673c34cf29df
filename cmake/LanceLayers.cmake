# The layer machinery of CMakeLists.txt: views of the include tree, one object library per
# layer, generated protobuf code per layer. See the top of CMakeLists.txt for the rules.

set(LANCE_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
set(LANCE_VIEWS_DIR ${CMAKE_BINARY_DIR}/layer_views)
file(MAKE_DIRECTORY ${LANCE_GENERATED_DIR})
set_property(GLOBAL PROPERTY LANCE_LAYERS "")

# The layers `deps` name, with everything they depend on, in no particular order.
function(lance_layer_closure out)
  set(result "")
  foreach(d ${ARGN})
    get_property(below GLOBAL PROPERTY LANCE_LAYER_DEPS_${d})
    list(APPEND result ${d} ${below})
  endforeach()
  list(REMOVE_DUPLICATES result)
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# lance_view(NAME [DEPS layers] [INTERNALS_OF layers]): a directory
# <build>/layer_views/NAME holding symbolic links -- lance/L -> include/lance/L for NAME and
# every layer below it, NAME -> src/NAME (its own internal headers), and L -> src/L for each
# INTERNALS_OF layer -- and LANCE_VIEW_NAME, the include path made of it and the generated
# code of those layers.
function(lance_view name)
  cmake_parse_arguments(V "" "" "DEPS;INTERNALS_OF" ${ARGN})
  lance_layer_closure(visible ${V_DEPS})
  get_property(all_layers GLOBAL PROPERTY LANCE_LAYERS)
  set(view ${LANCE_VIEWS_DIR}/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view}/lance)
  set(public ${visible})
  if(name IN_LIST all_layers OR EXISTS ${CMAKE_SOURCE_DIR}/include/lance/${name})
    list(APPEND public ${name})
  endif()
  foreach(l ${public})
    if(EXISTS ${CMAKE_SOURCE_DIR}/include/lance/${l})
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/include/lance/${l} ${view}/lance/${l} SYMBOLIC)
    endif()
  endforeach()
  # Public headers a layer keeps at the top of include/lance/ (the C ABI's lance.h).
  get_property(top_files GLOBAL PROPERTY LANCE_TOP_HEADERS)
  foreach(entry ${top_files})
    string(REPLACE "=" ";" pair ${entry})
    list(GET pair 0 owner)
    list(GET pair 1 header)
    if(owner IN_LIST public)
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/include/lance/${header} ${view}/lance/${header} SYMBOLIC)
    endif()
  endforeach()
  set(internal ${V_INTERNALS_OF})
  if(EXISTS ${CMAKE_SOURCE_DIR}/src/${name})
    list(APPEND internal ${name})
  endif()
  foreach(l ${internal})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${l} ${view}/${l} SYMBOLIC)
  endforeach()
  set(dirs ${view})
  set(generated ${public} ${internal})
  list(REMOVE_DUPLICATES generated)
  foreach(l ${generated})
    list(APPEND dirs ${LANCE_GENERATED_DIR}/${l})
  endforeach()
  set(LANCE_VIEW_${name} ${dirs} PARENT_SCOPE)
endfunction()

# lance_top_header(LAYER FILE): include/lance/FILE belongs to LAYER's public API.
function(lance_top_header layer header)
  set_property(GLOBAL APPEND PROPERTY LANCE_TOP_HEADERS "${layer}=${header}")
endfunction()

# Generated protobuf code of `layer` (src/<layer>/proto/*.proto).
function(lance_layer_protos layer)
  file(GLOB protos CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${layer}/proto/*.proto)
  set(sources "")
  set(outputs "")
  foreach(proto ${protos})
    get_filename_component(stem ${proto} NAME_WE)
    set(out ${LANCE_GENERATED_DIR}/${layer}/${layer}/proto/${stem})
    add_custom_command(OUTPUT ${out}.pb.cc ${out}.pb.h
      COMMAND ${CMAKE_COMMAND} -E make_directory ${LANCE_GENERATED_DIR}/${layer}
      COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=${LANCE_GENERATED_DIR}/${layer}
              -I${CMAKE_SOURCE_DIR}/src -I${Protobuf_INCLUDE_DIRS} ${proto}
      DEPENDS ${proto}
      COMMENT "protoc ${layer}/proto/${stem}.proto")
    list(APPEND sources ${out}.pb.cc)
    list(APPEND outputs ${out}.pb.cc ${out}.pb.h)
  endforeach()
  # The generated code on its own, so that the layers above wait for these headers only and
  # not for every object of this layer (on two cores each layer barrier left one core idle).
  if(outputs)
    add_custom_target(lance_${layer}_protos DEPENDS ${outputs})
  endif()
  # Hand-written proto support headers (src/LAYER/proto/*.h) go beside the generated ones, with
  # their visibility.
  file(GLOB support CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${layer}/proto/*.h)
  foreach(h ${support})
    get_filename_component(name ${h} NAME)
    configure_file(${h} ${LANCE_GENERATED_DIR}/${layer}/${layer}/proto/${name} COPYONLY)
  endforeach()
  set_source_files_properties(${sources} PROPERTIES
    COMPILE_OPTIONS "-Wno-unused-parameter;-Wno-array-bounds;$<$<CXX_COMPILER_ID:GNU>:-Wno-stringop-overflow>")
  set(LANCE_PROTO_SOURCES_${layer} ${sources} PARENT_SCOPE)
endfunction()

# lance_layer(NAME [DEPS layers] [INTERNALS_OF layers] [LIBS libraries]): the object library
# lance_NAME from src/NAME/*.cc (tests and fuzzers excluded) and its generated code, compiled
# against its view only.
function(lance_layer name)
  cmake_parse_arguments(L "" "" "DEPS;INTERNALS_OF;LIBS" ${ARGN})
  lance_layer_closure(below ${L_DEPS} ${L_INTERNALS_OF})
  set_property(GLOBAL PROPERTY LANCE_LAYER_DEPS_${name} ${below})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_test\\.cc$")
  list(FILTER srcs EXCLUDE REGEX "_fuzz\\.cc$")
  add_library(lance_${name} OBJECT ${srcs} ${LANCE_PROTO_SOURCES_${name}})
  set_property(GLOBAL APPEND PROPERTY LANCE_LAYERS ${name})
  lance_view(${name} DEPS ${L_DEPS} INTERNALS_OF ${L_INTERNALS_OF})
  target_include_directories(lance_${name} PRIVATE ${LANCE_VIEW_${name}})
  target_compile_options(lance_${name} PRIVATE ${LANCE_WARNINGS})
  target_link_libraries(lance_${name} PRIVATE ${L_LIBS})
  # Generated headers (of this layer and the ones below) before any of its files compile.
  foreach(d ${name} ${below})
    if(TARGET lance_${d}_protos)
      add_dependencies(lance_${name} lance_${d}_protos)
    endif()
  endforeach()
  set(LANCE_VIEW_${name} ${LANCE_VIEW_${name}} PARENT_SCOPE)
  get_property(layers GLOBAL PROPERTY LANCE_LAYERS)
  set(LANCE_LAYERS ${layers} PARENT_SCOPE)
endfunction()
