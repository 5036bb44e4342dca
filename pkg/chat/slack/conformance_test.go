package slack_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

const (
	suiteToken   = "xoxb-crash-token"
	suiteChannel = "C0CRASH01"
	suiteUser    = "U0CRASHUSER"
	suiteTeam    = "T0CRASH01"
)

// Slack against fakeslack: the providers' conformance suite.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Subject{
		Provider: func(time.Duration) chat.Provider {
			return slack.New(slack.Options{Timeout: 2 * time.Second, PostInterval: -1})
		},
		Config: func(url, user string) *spec.Config {
			cfg := &spec.Config{Provider: spec.ProviderSlack, Slack: &spec.SlackConfig{BotToken: spec.NewSecret(suiteToken),
				AppToken: spec.NewSecret("xapp-crash"), WorkspaceID: suiteTeam, ChannelID: suiteChannel, APIURL: url}}
			if user != "" {
				cfg.Slack.AuthorizedUserIDs = []string{user}
			}
			return cfg
		},
		Start:        startFake,
		Transport:    func(t *testing.T) providertest.TransportFake { return startTransportFake(t) },
		DoctorChecks: doctorChecks,
		// A file's id is staged before its upload (files.getUploadURLExternal).
		FileStage: true,
	})
}

// doctorChecks are Slack's doctor lines for a public channel, in order.
var doctorChecks = []string{"bot token", "channel", "scope chat:write", "scope channels:read",
	"scope channels:history", "scope reactions:write", "scope files:write", "scope files:read", "socket mode", "clock"}

// fake is fakeslack as the suite drives it.
type fake struct {
	providertest.Served[fakeslack.Snapshot]
	f *fakeslack.Server
}

func startFake(t *testing.T, _ time.Duration) providertest.Fake {
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{suiteToken}, Channels: []string{suiteChannel}, TeamID: suiteTeam})
	providertest.Started(t, f, err)
	return fake{providertest.Served[fakeslack.Snapshot]{Srv: f, Channel: suiteChannel, UserID: suiteUser}, f}
}

func (r fake) HoldNext() (func(context.Context) error, func(context.Context) error) {
	h := r.f.HoldNextPost()
	held := func(ctx context.Context) error {
		select {
		case <-h.Arrived():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	after := func(ctx context.Context) error {
		n := len(r.f.Snapshot().Messages)
		h.Release()
		// Stored although its client is gone: the restarted relay must
		// find it, not post it again.
		_, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return len(s.Messages) > n })
		return err
	}
	return held, after
}

func (r fake) AcceptThenFail(cut bool) {
	mode := fakeslack.Fail502
	if cut {
		mode = fakeslack.FailCut
	}
	r.f.AcceptThenFail(1, mode)
}

func (r fake) WaitPosts(ctx context.Context, n int) (int, error) {
	s, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.Posts > n })
	return s.Posts, err
}

// Places: a Slack thread is its root's replies, nothing to make twice.
func (r fake) Places() []providertest.Place {
	sn := r.f.Snapshot()
	var out []providertest.Place
	for _, m := range sn.Channel(suiteChannel) {
		p := providertest.Place{ID: m.TS, Thread: m.TS, Root: m.Text, Threads: 1}
		for _, rep := range sn.Thread(suiteChannel, m.TS) {
			p.Replies = append(p.Replies, rep.Text)
		}
		out = append(out, p)
	}
	return out
}

func (r fake) Messages() int { return len(r.f.Snapshot().Messages) }

// DeletePlace deletes the root and every reply, as an admin clearing a
// thread does: only then is a Slack thread gone.
func (r fake) DeletePlace(p providertest.Place) {
	for _, m := range r.f.Snapshot().Thread(suiteChannel, p.ID) {
		r.f.DeleteMessage(suiteChannel, m.TS)
	}
	r.f.DeleteMessage(suiteChannel, p.ID)
}

func (r fake) Reply(place, text string) (string, error) {
	m, err := r.f.InjectMessage(suiteChannel, suiteUser, text, place)
	return m.TS, err
}

func (r fake) WaitEyes(ctx context.Context, place, id string, n int) error {
	_, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		for _, m := range s.Thread(suiteChannel, place) {
			if m.TS == id {
				return len(m.Reactions) == n && m.ReactRequests == n
			}
		}
		return false
	})
	return err
}

// transportFake is fakeslack as providertest.Transport drives it.
type transportFake struct {
	providertest.ServedTransport[fakeslack.Snapshot]
	srv *fakeslack.Server
}

func startTransportFake(t *testing.T) transportFake {
	t.Helper()
	srv, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{"xoxb-1"}, AppTokens: []string{"xapp-1"}, Channels: []string{"C1"}, PingInterval: 200 * time.Millisecond})
	providertest.Started(t, srv, err)
	conns := func(s fakeslack.Snapshot) (int, int) { return s.Apps["xapp-1"].Live, s.Apps["xapp-1"].MaxLive }
	return transportFake{providertest.ServedTransport[fakeslack.Snapshot]{Srv: srv, Token: "xapp-1", Conns: conns}, srv}
}

func (f transportFake) Transport(t *testing.T) chat.Transport {
	cfg := &spec.SlackConfig{BotToken: spec.NewSecret("xoxb-1"), AppToken: spec.NewSecret("xapp-1"), WorkspaceID: f.srv.TeamID(), ChannelID: "C1", APIURL: f.srv.URL()}
	return slack.NewTransport(cfg, slack.TransportOptions{Log: testr.New(t)})
}

// A refused token is terminal, and the refusal names which of the two
// tokens Slack refused, so an operator knows which to fix.
func TestRejectedTokenIsNamed(t *testing.T) {
	for _, tc := range []struct{ rejected, want string }{
		{"xapp-1", "app token (appToken)"},
		{"xoxb-1", "bot token (botToken)"},
	} {
		t.Run(tc.rejected, func(t *testing.T) {
			f := startTransportFake(t)
			f.srv.SetTokenRejected(tc.rejected, true)
			_, _, run := providertest.StartTransport(t, f.Transport(t))
			var te *chat.TerminalError
			if err := run.Wait(t); !errors.As(err, &te) || te.Reason != daemonproto.ReasonInvalidCredentials {
				t.Fatalf("Run = %v, want a terminal InvalidCredentials", err)
			}
			if !strings.Contains(te.Message, tc.want) {
				t.Errorf("refusal %q does not name the %s", te.Message, tc.want)
			}
		})
	}
}

// Withhold: what the fake can take away from the bot, by doctor check.
func (r fake) Withhold(check string) {
	switch check {
	case "bot token":
		r.f.SetTokenRejected(suiteToken, true)
	case "channel":
		r.f.SetNotInChannel(suiteChannel, true)
	case "socket mode":
		r.f.SetScopeGranted("connections:write", false)
	default:
		if scope, ok := strings.CutPrefix(check, "scope "); ok {
			r.f.SetScopeGranted(scope, false)
			return
		}
		panic("fakeslack cannot withhold " + check)
	}
}
