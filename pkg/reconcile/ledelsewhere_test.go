package reconcile

import "testing"

func TestLedElsewhere(t *testing.T) {
	for _, c := range []struct {
		name string
		e    *Election
		want string
	}{
		{"one machine", nil, ""},
		{"nobody leads", &Election{Self: "a"}, ""},
		{"this machine leads", &Election{Leader: "a", Self: "a"}, ""},
		{"another leads", &Election{Leader: "b", Self: "a"}, "machine b leads it"},
		{"unreadable", &Election{Self: "a", Error: "etcd unreachable"}, "which machine leads it cannot be read: etcd unreachable"},
	} {
		if got := ledElsewhere(c.e); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
