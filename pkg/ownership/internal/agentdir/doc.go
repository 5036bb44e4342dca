// Package agentdir is what every store keeps in one machine's agent dir,
// whichever backend holds the records: the daemons' private directories,
// the keys of the agent dir's kernel-held locks, and the pass lock that
// serializes reconciler passes over it. fsstore and etcdstore both use it,
// so neither imports the other.
package agentdir
