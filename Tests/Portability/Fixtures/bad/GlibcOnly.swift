// Imports Glibc (guarded) but has no Darwin or Foundation import: on macOS its
// C calls (strlen here) have nothing to resolve to.
#if canImport(Glibc)
import Glibc  // expect: glibc-only-import
#endif

func length(_ text: UnsafePointer<CChar>) -> Int { strlen(text) }
