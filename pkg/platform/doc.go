// Package platform holds the operating-system facts and primitives that the
// rest of reconciler builds its safety promises on: proving which process a
// PID names (its incarnation), judging liveness, signalling and watching a
// process through a reference that cannot drift to a reused PID, and file
// operations fenced against a file being swapped underneath them.
//
// Linux is the tested platform. On Linux a process reference is a pidfd, so
// once OpenProcess has proved the incarnation, signals and exit watching can
// never reach another process. macOS has no pidfd: there the incarnation is
// re-read immediately before each kill(2), and exits are watched with kqueue.
//
// Every file this package creates is mode 0600 and every directory 0700.
// Temporary and quarantine files live next to their target under names that
// atomicfile.ParseLeftover recognises, so a collector can find what a crash
// left behind. Plain atomic writes, capped reads and private directories
// are pkg/atomicfile's; this package builds its fenced files on them.
package platform
