// Package atomicfile writes a file whole or not at all, durably (the file
// and its directory fsynced), reads one with a size cap and never through a
// symbolic link, and keeps directories private (0700, ours, not writable by
// others). It is a leaf: it imports nothing of this module, so any package
// may keep its files with it, including those that must not reach the
// process primitives of pkg/platform (pkg/reconcile).
//
// Every file it creates is mode 0600 and every directory 0700. Temporary
// files live next to their target under names ParseLeftover recognises, so
// a collector can find what a crash left behind.
package atomicfile
