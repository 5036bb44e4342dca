package fleetbus

import (
	"context"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Owner is a daemon's claim on its name in etcd: the relay writes only
// through it.
type Owner interface {
	// Client is the claim's etcd client.
	Client() *clientv3.Client
	// Dir is the name's key prefix, "<prefix>/<name>/".
	Dir() string
	// Guarded commits ops only while the claim still owns the name,
	// compared in the same transaction; an error wrapping
	// ownership.ErrOwnershipLost when it does not.
	Guarded(ctx context.Context, what string, ops ...clientv3.Op) error
}

// Dir is the key prefix of name's records under prefix, as Owner.Dir.
func Dir(prefix, name string) string { return strings.TrimSuffix(prefix, "/") + "/" + name + "/" }

func outboxPrefix(dir string) string  { return dir + "outbox/" }
func outboxKey(dir, id string) string { return outboxPrefix(dir) + id }
func doneKey(dir, id string) string   { return dir + "done/" + id }
func journalPrefix(dir string) string { return dir + "journal/" }
func inboxPrefix(dir string) string   { return dir + "inbox/" }
func inboxKey(dir, session, file string) string {
	return inboxPrefix(dir) + session + "/" + file
}
func journalKey(dir string, seq uint64) string {
	return fmt.Sprintf("%s%020d", journalPrefix(dir), seq)
}

// maxOps is how many operations one transaction carries at most: etcd
// refuses more than 128 by default.
const maxOps = 100
