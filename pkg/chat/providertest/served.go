package providertest

import (
	"context"
	"testing"
	"time"
)

// What every provider's fake server does alike, so that a provider's
// conformance test says only what its service does differently: its Fake
// embeds Served and its TransportFake embeds ServedTransport, each over
// the fake server's own snapshot type S.

// Server is what Served asks of a fake server.
type Server[S any] interface {
	URL() string
	WaitFor(ctx context.Context, cond func(S) bool) (S, error)
	SetChannelUnknown(id string, unknown bool)
	RateLimitNext(n int, retryAfter time.Duration)
}

// Served is the part of a Fake every fake server plays alike: Srv is the
// fake, Channel the suite's channel at it, UserID the authorized user.
type Served[S any] struct {
	Srv     Server[S]
	Channel string
	UserID  string
}

func (f Served[S]) URL() string { return f.Srv.URL() }

func (f Served[S]) WaitFor(ctx context.Context, cond func() bool) error {
	_, err := f.Srv.WaitFor(ctx, func(S) bool { return cond() })
	return err
}

// LoseChannel has the service answer that the suite's channel is unknown,
// as when the bot loses it (Discord answers so for its threads too).
func (f Served[S]) LoseChannel(lost bool) { f.Srv.SetChannelUnknown(f.Channel, lost) }

func (f Served[S]) RateLimitNext(n int, retryAfter time.Duration) { f.Srv.RateLimitNext(n, retryAfter) }

func (f Served[S]) User() string { return f.UserID }

// TransportServer is what ServedTransport asks of a fake server.
type TransportServer[S any] interface {
	WaitFor(ctx context.Context, cond func(S) bool) (S, error)
	DropConnections() int
	SetTokenRejected(token string, rejected bool)
}

// ServedTransport is the part of a TransportFake every fake server plays
// alike: Srv is the fake, Token the credential the transport holds its
// connection with, and Conns reads Token's connections from a snapshot:
// how many are live, and the most ever live at once.
type ServedTransport[S any] struct {
	Srv   TransportServer[S]
	Token string
	Conns func(S) (live, most int)
}

func (f ServedTransport[S]) DropConnections() { f.Srv.DropConnections() }

func (f ServedTransport[S]) RejectTokens() { f.Srv.SetTokenRejected(f.Token, true) }

// MaxLive waits for the fake to notice the closed connection, on its own
// time.
func (f ServedTransport[S]) MaxLive(ctx context.Context) (int, error) {
	s, err := f.Srv.WaitFor(ctx, func(s S) bool {
		live, _ := f.Conns(s)
		return live == 0
	})
	_, most := f.Conns(s)
	return most, err
}

// Started fails t if a fake server did not start (err), and closes it
// when t ends.
func Started(t *testing.T, srv interface{ Close() }, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
}
