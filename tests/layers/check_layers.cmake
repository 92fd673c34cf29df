# cmake -DCXX=... -DSRC=... -DVIEWS=... -DGEN=... -P check_layers.cmake
# Compiles each probe of tests/layers/ against one layer's view and checks that exactly the
# probes meant to fail do (an include up a layer or into another layer's internals).
function(view_flags layer out)
  set(flags -I${VIEWS}/${layer})
  file(GLOB gens LIST_DIRECTORIES true ${GEN}/*)
  foreach(g ${gens})
    get_filename_component(l ${g} NAME)
    if(EXISTS ${VIEWS}/${layer}/lance/${l} OR EXISTS ${VIEWS}/${layer}/${l})
      list(APPEND flags -I${g})
    endif()
  endforeach()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

set(failures "")
foreach(probe "upward_include;file;fail" "foreign_internal_include;table;fail"
              "downward_include;table;pass" "table_includes_query;table;fail"
              "query_includes_table;query;pass" "query_includes_dataset;query;fail"
              "dataset_includes_query;dataset;pass")
  list(GET probe 0 name)
  list(GET probe 1 layer)
  list(GET probe 2 expect)
  view_flags(${layer} flags)
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${flags} ${SRC}/tests/layers/${name}.cc
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect STREQUAL "fail" AND rc EQUAL 0)
    list(APPEND failures "${name}.cc compiled in the ${layer} layer's view but must not")
  elseif(expect STREQUAL "pass" AND NOT rc EQUAL 0)
    list(APPEND failures "${name}.cc did not compile in the ${layer} layer's view:\n${err}")
  else()
    message(STATUS "${name}.cc in the ${layer} view: ${expect}s as it must")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "layer checks failed:\n${failures}")
endif()
