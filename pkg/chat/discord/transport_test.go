package discord

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/spec"
)

// transportFake is fakediscord as providertest.Transport drives it.
type transportFake struct{ srv *fakediscord.Server }

func newTransportFake(t *testing.T) providertest.TransportFake {
	t.Helper()
	srv, err := fakediscord.Start(fakediscord.Options{Tokens: []string{"tok-d"}, Channels: []string{"chan-3"}, HeartbeatInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return transportFake{srv}
}

func (f transportFake) Transport(t *testing.T) chat.Transport {
	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret("tok-d"), ApplicationID: "app", GuildID: f.srv.GuildID(), ParentChannelID: "chan-3", APIURL: f.srv.URL()}
	return NewTransport(cfg, TransportOptions{Log: testr.New(t)})
}

func (f transportFake) DropConnections() { f.srv.DropConnections() }

func (f transportFake) RejectTokens() { f.srv.SetTokenRejected("tok-d", true) }

// MaxLive waits for the fake to notice the closed connection, on its own time.
func (f transportFake) MaxLive(ctx context.Context) (int, error) {
	snap, err := f.srv.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Tokens["tok-d"].Live == 0 })
	return snap.Tokens["tok-d"].MaxLive, err
}

func TestTransport(t *testing.T) { providertest.Transport(t, newTransportFake) }

// A Discord spec whose apiURL points at a proxy or a fake must report
// connection errors against that host: an error that says discord.com sends
// its reader to check the wrong machine.
func TestErrorNamesTheDialledHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: every dial is refused
	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret("tok-d"), ApplicationID: "app", GuildID: "g", ParentChannelID: "chan-3", APIURL: "http://" + addr}
	h, _, _ := providertest.StartTransport(t, NewTransport(cfg, TransportOptions{Log: testr.New(t)}))
	v := h.WaitFor(t, false)
	if !strings.Contains(v.Err, "http://"+addr+"/") || strings.Contains(v.Err, "discord.com") {
		t.Errorf("transport error %q: want it to name http://%s/, not discord.com", v.Err, addr)
	}
}
