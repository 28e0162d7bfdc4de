// Preloaded into the app by the soak test (LD_PRELOAD): dlclose does nothing, so the GL driver that
// Mesa dlopen()s stays mapped until exit and LeakSanitizer names its one-time allocations (which
// tests/sanitizer.supp suppresses) instead of "<unknown module>" frames no suppression can match.
// With it the soak test checks for leaks in our code, which the other GUI tests cannot.
extern "C" int dlclose(void*) { return 0; }
