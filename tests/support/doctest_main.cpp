// The doctest entry point for the whole suite; the test files hold the cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
