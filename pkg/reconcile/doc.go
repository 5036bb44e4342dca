// Package reconcile makes the machine match the spec: for every desired name
// and every name it once spawned, observe the on-disk owner, classify it
// against the desired object, and attach, spawn, stop-and-replace or stop.
// Every wait is bounded and every signal goes through the fenced ownership
// operations, so a record that cannot be proven is left exactly as it was.
package reconcile
