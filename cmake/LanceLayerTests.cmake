# Tests of the build's own promises: layers enforced, and the installed package usable by an
# out-of-tree consumer (CMake and pkg-config).
add_test(NAME layers_enforced COMMAND ${CMAKE_COMMAND} -DCXX=${CMAKE_CXX_COMPILER}
  -DSRC=${CMAKE_SOURCE_DIR} -DVIEWS=${LANCE_VIEWS_DIR} -DGEN=${LANCE_GENERATED_DIR}
  -P ${CMAKE_SOURCE_DIR}/tests/layers/check_layers.cmake)
add_test(NAME install_consumers COMMAND ${CMAKE_SOURCE_DIR}/tests/install/consumers.sh
  ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(install_consumers PROPERTIES TIMEOUT 600)

# The build targets the Makefile and READMEs name exist (`make bench` once named a missing one).
add_test(NAME make_targets COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-make-targets.sh ${CMAKE_SOURCE_DIR})
