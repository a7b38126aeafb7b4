# Replay of the libFuzzer targets in the ordinary build: each target's LLVMFuzzerTestOneInput
# with replay_main.cc (no libFuzzer, any compiler), linked to the static libckpt (the targets
# call internals), run by ctest over the committed regression corpus, the seeds the project makes
# itself and seeds derived from Flink's snapshots in ../shared (read in place; skipped without
# it). A finding aborts: the test fails. The binaries take directories, so that files added to
# regression/<target>/ are replayed without reconfiguring.
include(${CMAKE_CURRENT_LIST_DIR}/make_stream_seeds.cmake)

set(replay_dir ${CMAKE_CURRENT_LIST_DIR})
set(replay_out ${CMAKE_CURRENT_BINARY_DIR}/fuzz-replay)
set(replay_shared_default ${PROJECT_SOURCE_DIR}/../shared)

foreach(target fuzz_metadata fuzz_serializer fuzz_state_streams fuzz_avro_schema fuzz_java_stream fuzz_s3_xml)
  add_executable(replay_${target} ${replay_dir}/${target}.cc ${replay_dir}/replay_main.cc)
  target_include_directories(replay_${target} PRIVATE ${PROJECT_SOURCE_DIR}/lib/src)
  target_link_libraries(replay_${target} PRIVATE ckpt_static nlohmann_json::nlohmann_json)
endforeach()

# The driver itself: a target with a known finding must fail the replay and be named.
add_executable(replay_selftest ${replay_dir}/replay_selftest_target.cc ${replay_dir}/replay_main.cc)
add_test(NAME replay_driver_selftest
  COMMAND ${CMAKE_COMMAND} -DREPLAY=$<TARGET_FILE:replay_selftest> -DWORK=${replay_out}/selftest -P ${replay_dir}/replay_selftest.cmake)

# A seed-making step run by ctest before the replays that need it.
function(replay_seed_step name out fixture)
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DOUT=${out} -P ${replay_dir}/fresh_run.cmake ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${fixture} LABELS fuzz-replay)
endfunction()

# (a) the regression corpus: every finding and the hand-made seeds (the sample savepoint is
# ckpt's own writing, committed in testdata/).
add_test(NAME replay_fuzz_metadata_regression
  COMMAND replay_fuzz_metadata ${replay_dir}/regression/fuzz_metadata ${PROJECT_SOURCE_DIR}/testdata/sample-savepoint/_metadata)
add_test(NAME replay_fuzz_serializer_regression COMMAND replay_fuzz_serializer ${replay_dir}/regression/fuzz_serializer)
add_test(NAME replay_fuzz_state_streams_regression COMMAND replay_fuzz_state_streams ${replay_dir}/regression/fuzz_state_streams)
add_test(NAME replay_fuzz_avro_schema_regression COMMAND replay_fuzz_avro_schema ${replay_dir}/regression/fuzz_avro_schema)
add_test(NAME replay_fuzz_java_stream_regression COMMAND replay_fuzz_java_stream ${replay_dir}/regression/fuzz_java_stream)
add_test(NAME replay_fuzz_s3_xml_regression COMMAND replay_fuzz_s3_xml ${replay_dir}/regression/fuzz_s3_xml)

# (b) seeds the project makes at test time, into the build tree: the _metadata of a snapshot of
# each layout and of an incremental chain (`ckpt generate`), and make_stream_seeds' hand-built
# streams and change logs.
foreach(backend heap canonical rocksdb)
  replay_seed_step(fuzz_seeds_generate_${backend} ${replay_out}/generated/${backend} fuzz_generated
    $<TARGET_FILE:ckpt_bin> generate --backend ${backend} --keys 40 --value-size 8 --states value,list,map
    --parallelism 2 --output ${replay_out}/generated/${backend})
endforeach()
replay_seed_step(fuzz_seeds_generate_chain ${replay_out}/generated/chain fuzz_generated
  $<TARGET_FILE:ckpt_bin> generate --chain 2 --keys 40 --value-size 8 --states value,map --output ${replay_out}/generated/chain)
add_test(NAME replay_fuzz_metadata_generated COMMAND replay_fuzz_metadata --name _metadata ${replay_out}/generated)
set_tests_properties(replay_fuzz_metadata_generated PROPERTIES FIXTURES_REQUIRED fuzz_generated)

replay_seed_step(fuzz_seeds_streams ${replay_out}/stream-seeds fuzz_stream_seeds
  $<TARGET_FILE:make_stream_seeds> ${replay_out}/no-corpus ${replay_out}/stream-seeds)
add_test(NAME replay_fuzz_state_streams_seeds COMMAND replay_fuzz_state_streams ${replay_out}/stream-seeds)
set_tests_properties(replay_fuzz_state_streams_seeds PROPERTIES FIXTURES_REQUIRED fuzz_stream_seeds)
# make_stream_seeds also writes a generated `_metadata` with hostile file names and key-group ranges.
add_test(NAME replay_fuzz_metadata_hostile COMMAND replay_fuzz_metadata ${replay_out}/stream-seeds/metadata)
set_tests_properties(replay_fuzz_metadata_hostile PROPERTIES FIXTURES_REQUIRED fuzz_stream_seeds)

# (c) seeds derived from Flink's snapshots, read in place from ../shared ($CKPT_SHARED_DIR
# overrides): every _metadata of flink and flink-sql, every serializer snapshot followed by its
# values, and make_stream_seeds' streams, proxies and change logs of the flink snapshots.
add_test(NAME replay_fuzz_metadata_shared
  COMMAND replay_fuzz_metadata --shared ${replay_shared_default} --name _metadata testdata/flink testdata/flink-sql)
add_test(NAME replay_fuzz_serializer_shared
  COMMAND replay_fuzz_serializer --shared ${replay_shared_default} --name serializer-snapshot --append test-data
  testdata/flink-serializers)
replay_seed_step(fuzz_seeds_streams_shared ${replay_out}/stream-seeds-shared fuzz_stream_seeds_shared
  sh -c "exec \"$0\" \"\${CKPT_SHARED_DIR:-$1}/testdata/flink\" \"$2\""
  $<TARGET_FILE:make_stream_seeds> ${replay_shared_default} ${replay_out}/stream-seeds-shared)
add_test(NAME replay_fuzz_state_streams_shared
  COMMAND replay_fuzz_state_streams --shared ${replay_shared_default} ${replay_out}/stream-seeds-shared)
set_tests_properties(replay_fuzz_state_streams_shared PROPERTIES FIXTURES_REQUIRED fuzz_stream_seeds_shared)

set_tests_properties(
  replay_driver_selftest replay_fuzz_metadata_regression replay_fuzz_serializer_regression replay_fuzz_state_streams_regression
  replay_fuzz_avro_schema_regression replay_fuzz_s3_xml_regression
  replay_fuzz_metadata_generated replay_fuzz_state_streams_seeds replay_fuzz_metadata_hostile
  replay_fuzz_metadata_shared replay_fuzz_serializer_shared replay_fuzz_state_streams_shared
  PROPERTIES LABELS fuzz-replay SKIP_RETURN_CODE 77 TIMEOUT 300)
