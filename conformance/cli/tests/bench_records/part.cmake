# `convcheck bench` writes null for what it did not measure (a declined or crashing case, the reference under
# --no-reference) and a positive number for everything it measured (docs/results-schema.md).
if(CONVCHECK_BUILD_TESTS)
  add_test(NAME conformance_bench_records
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_records_check.py $<TARGET_FILE:convcheck>
                   ${CMAKE_CURRENT_BINARY_DIR}/bench_records)
endif()
