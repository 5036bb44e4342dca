package main

import (
	"net"
	"testing"
)

// Only a loopback address is served without a warning; every interface
// (0.0.0.0, [::]) and another host's address are warned about.
func TestMetricsLoopback(t *testing.T) {
	for _, c := range []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.53", true},
		{"::1", true},
		{"0.0.0.0", false},
		{"::", false},
		{"192.0.2.10", false},
		{"2001:db8::1", false},
	} {
		if got := loopback(&net.TCPAddr{IP: net.ParseIP(c.ip), Port: 9464}); got != c.want {
			t.Errorf("loopback(%s) = %v, want %v", c.ip, got, c.want)
		}
	}
	if loopback(&net.UnixAddr{Name: "/tmp/x", Net: "unix"}) {
		t.Error("a unix address is not a loopback TCP address")
	}
}
