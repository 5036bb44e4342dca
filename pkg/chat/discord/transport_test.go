package discord_test

import (
	"net"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/spec"
)

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
	h, _, _ := providertest.StartTransport(t, discord.NewTransport(cfg, discord.TransportOptions{Log: testr.New(t)}))
	v := h.WaitFor(t, false)
	if !strings.Contains(v.Err, "http://"+addr+"/") || strings.Contains(v.Err, "discord.com") {
		t.Errorf("transport error %q: want it to name http://%s/, not discord.com", v.Err, addr)
	}
}
