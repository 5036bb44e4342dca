// Package daemonlog reads a daemon's daemon.log for people: the zap JSON
// lines the daemon writes rendered as time, level, message and key=value
// fields, anything else (a Go panic, a line the daemon did not write)
// shown as it is. The file is untrusted input: read through pkg/linefile
// (no symbolic link, no FIFO, capped lines), its daemon dir checked not to
// be a symbolic link, and every text made safe to print.
package daemonlog
