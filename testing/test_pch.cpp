// The program that builds the test programs' precompiled header (convcheck_test_pch in the top-level
// CMakeLists.txt): GoogleTest and RapidCheck, compiled once and reused by every test program. It has no tests.
