// Package events keeps the reconciler's event history,
// <agentDir>/sdk/reconciler/events.jsonl: one JSON object a line,
// {time, name, type, reason, message}, appended by the loop and by a CLI
// command acting itself, read by `reconciler events` and `describe`.
//
// Bounded: a write that would take the file past MaxSize first rotates it,
// events.jsonl -> events.jsonl.1 -> events.jsonl.2 (the oldest dropped), so
// at most three files of MaxSize each are on disk. Rotations are
// serialized across processes by an flock on events.jsonl.lock; appends are
// not locked at all: each line is one write(2) of at most MaxLine bytes on
// an O_APPEND descriptor, which the kernel never interleaves with another.
//
// The files are read as untrusted input: no symbolic link is followed,
// nothing but a regular file is read, lines and files are capped, and a
// line that is not a valid event is skipped and counted, never fatal.
package events
