package fakeserver

import (
	"net"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The case a peek cannot tell: the client wrote, then closed, and the
// server has not read yet.
func TestGoneSeesCloseBehindUnreadData(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if Gone(server) {
		t.Fatal("Gone on an open connection")
	}
	if _, err := client.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	waitRDHUP(t, server)
	if !Gone(server) {
		t.Fatal("not Gone after the peer closed, with its data unread")
	}
}

// waitRDHUP waits, with a deadline, for the kernel to have the peer's FIN,
// without reading anything.
func waitRDHUP(t *testing.T, c net.Conn) {
	t.Helper()
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var perr error
	if err := raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, perr = unix.Poll(fds, 10_000)
	}); err != nil {
		t.Fatal(err)
	}
	if perr != nil || n != 1 {
		t.Fatalf("no FIN from the peer within 10s: n=%d err=%v", n, perr)
	}
}
