# tests/catch_labels.cmake - ctest labels from the tests' Catch tags, so that `ctest -L state`
# runs one layer's tests.
#
# Catch2 v2's catch_discover_tests cannot label tests (ADD_TAGS_AS_LABELS came with Catch2 v3),
# so ctest reads this after the discovered test list (TEST_INCLUDE_FILES in CMakeLists.txt, which
# sets TEST_EXECUTABLE) and asks the binary which tests carry each tag. Test names hold no ';'
# and no '[' (tests/docs/test_names_test.cc), so they are safe as CMake list elements.
if(NOT EXISTS "${TEST_EXECUTABLE}")
  return()
endif()
# Catch v2's list options exit with the number of items listed, not 0.
execute_process(COMMAND "${TEST_EXECUTABLE}" --list-tags OUTPUT_VARIABLE listed)
string(REGEX MATCHALL "\\[[^]\n]+\\]" tags "${listed}")
set(named "")
foreach(tag IN LISTS tags)
  string(REGEX REPLACE "^\\[(.*)\\]$" "\\1" label "${tag}")
  execute_process(COMMAND "${TEST_EXECUTABLE}" "${tag}" --list-test-names-only OUTPUT_VARIABLE names)
  string(REPLACE "\n" ";" names "${names}")
  foreach(name IN LISTS names)
    if(name STREQUAL "")
      continue()
    endif()
    string(MD5 key "${name}")
    if(NOT DEFINED labels_${key})
      list(APPEND named "${name}")
    endif()
    list(APPEND labels_${key} "${label}")
  endforeach()
endforeach()
foreach(name IN LISTS named)
  string(MD5 key "${name}")
  set_tests_properties("${name}" PROPERTIES LABELS "${labels_${key}}")
endforeach()
