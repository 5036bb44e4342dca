package systemtest

import (
	"context"
	"fmt"
	"path"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The etcd mode's own faults: a machine lost and back, a machine cut off
// from the cluster and healed, a member of the cluster lost and back.
// Each ends on its own timer, or at the restore.

// crashMachine ends m as a lost machine ends, its loop and every daemon it
// runs with SIGKILL, nothing released; it comes back after down.
func (c *chaos) crashMachine(m *chaosMachine, down time.Duration) {
	loop := c.loopOf(m)
	select {
	case <-loop.done:
	default:
		c.killLoop(m, loop)
	}
	procs := m.daemonProcs("")
	for _, p := range procs {
		_ = p.signal(syscall.SIGKILL)
		c.forget(p.pid)
	}
	closeAll(procs)
	c.note("kill9-machine %s: its loop (pid %d) and %d daemons; back in %v", m.id, loop.cmd.Process.Pid, len(procs), down)
	time.AfterFunc(down, func() { c.restartLoop(m, "machine back") })
}

// partition cuts m off from the cluster (its chat service stays reachable,
// as across a broken link to the cluster) and heals it after d.
func (c *chaos) partition(m *chaosMachine, d time.Duration) {
	c.mu.Lock()
	if m.cut {
		c.mu.Unlock()
		c.note("partition %s: already cut off", m.id)
		return
	}
	m.cut = true
	c.mu.Unlock()
	err := m.net.blackhole("add", c.machines[0].net.etcdIP)
	c.note("partition %s from etcd for %v: %v", m.id, d, err)
	time.AfterFunc(d, func() { c.heal(m) })
}

// heal ends m's partition, once.
func (c *chaos) heal(m *chaosMachine) {
	c.mu.Lock()
	cut := m.cut
	m.cut = false
	c.mu.Unlock()
	if cut {
		c.note("heal %s: %v", m.id, m.net.blackhole("del", c.machines[0].net.etcdIP))
	}
}

// loseMember stops member i of the cluster and starts it again after d. Two
// lost at once lose the cluster its quorum: every lease stops renewing, and
// every owner must stop before it can expire.
func (c *chaos) loseMember(i int, d time.Duration) {
	c.mu.Lock()
	if c.down[i] {
		c.mu.Unlock()
		c.note("member-loss %d: already down", i)
		return
	}
	c.down[i] = true
	c.mu.Unlock()
	c.fleet.cluster.StopMember(i)
	c.note("member-loss: member %d stopped for %v", i, d)
	time.AfterFunc(d, func() { c.restoreMember(i) })
}

// restoreMember starts a lost member again, once.
func (c *chaos) restoreMember(i int) {
	c.mu.Lock()
	down := c.down[i]
	delete(c.down, i)
	c.mu.Unlock()
	if down {
		c.note("member %d back: %v", i, c.fleet.cluster.RestartMember(i))
	}
}

// restoreFleet heals every partition and starts every lost member.
func (c *chaos) restoreFleet() {
	if c.fleet == nil {
		return
	}
	for _, m := range c.machines {
		c.heal(m)
	}
	for i := range c.fleet.cluster.Members() {
		c.restoreMember(i)
	}
}

// fleetOutboxed is how many messages wait in etcd for a name's owner to
// post them.
func (c *chaos) fleetOutboxed(ctx context.Context) (int64, error) {
	var n int64
	for _, b := range c.bots {
		resp, err := c.fleet.cli.Get(ctx, path.Join(etcdstore.DefaultPrefix, b.name, "outbox")+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return 0, err
		}
		n += resp.Count
	}
	return n, nil
}

// fleetConverged says what is not yet as it should be across the fleet,
// given each machine's status; "" when every name is held in etcd by the
// machine every machine's status shows running it.
func (c *chaos) fleetConverged(statuses map[*chaosMachine]*reconcile.Status) string {
	for _, b := range c.bots {
		h := c.fleet.holder(b.name)
		if h == nil {
			return b.name + ": held by nobody in etcd"
		}
		for _, m := range c.machines {
			d, ok := daemonStatus(statuses[m], b.name)
			if !ok || d.Machine != h.Machine {
				return fmt.Sprintf("%s: %s shows it on %q, etcd on %q", b.name, m.id, d.Machine, h.Machine)
			}
		}
	}
	return ""
}
