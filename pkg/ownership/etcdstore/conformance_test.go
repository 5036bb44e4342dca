package etcdstore_test

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
	"gjc.dev/reconciler/pkg/ownership/ownershiptest"
)

// The fleet's store passes the matrix every store passes, against a real
// etcd server.
func TestConformance(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{})
	ownershiptest.Run(t, ownershiptest.Harness{New: newWorld(c)})
}
