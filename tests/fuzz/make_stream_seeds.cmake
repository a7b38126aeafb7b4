# make_stream_seeds, shared by the fuzz build (seeds before a campaign) and the ordinary build
# (seeds replayed by ctest): built with the project's own writers, uninstrumented, linked to libckpt.
include_guard(GLOBAL)
add_executable(make_stream_seeds ${CMAKE_CURRENT_LIST_DIR}/make_stream_seeds.cc ${PROJECT_SOURCE_DIR}/tests/testlib/change_records.cc
               ${PROJECT_SOURCE_DIR}/tests/testlib/hostile_inputs.cc)
target_include_directories(make_stream_seeds PRIVATE ${PROJECT_SOURCE_DIR}/lib/include ${PROJECT_SOURCE_DIR}/lib/src
                           ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(make_stream_seeds PRIVATE ckpt_static fmt::fmt nlohmann_json::nlohmann_json)
