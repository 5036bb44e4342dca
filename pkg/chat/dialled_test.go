package chat

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/spec"
)

// A Discord spec whose apiURL points at a proxy or a fake must report
// connection errors against that host: an error that says discord.com sends
// its reader to check the wrong machine.
func TestDiscordErrorNamesTheDialledHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: every dial is refused
	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret("tok-d"), ApplicationID: "app", GuildID: "g", ParentChannelID: "chan-3", APIURL: "http://" + addr}
	h, _, _ := startTransport(t, NewDiscord(cfg, DiscordOptions{Log: testr.New(t)}))
	v := h.waitFor(t, false)
	if !strings.Contains(v.Err, "http://"+addr+"/") || strings.Contains(v.Err, "discord.com") {
		t.Errorf("transport error %q: want it to name http://%s/, not discord.com", v.Err, addr)
	}
}

func TestDialledErrLeavesOtherHostsAlone(t *testing.T) {
	for _, tc := range []struct{ apiURL, url, want string }{
		{"http://127.0.0.1:9", "https://discord.com/api/v9/users/@me", `Get "http://127.0.0.1:9/api/v9/users/@me": refused`},
		// The gateway's socket is dialled where /gateway said, not rewritten.
		{"http://127.0.0.1:9", "wss://gateway.example/?v=10", `Get "wss://gateway.example/?v=10": refused`},
		{"", "https://discord.com/api/v9/gateway", `Get "https://discord.com/api/v9/gateway": refused`},
	} {
		err := fmt.Errorf("checking the bot token: %w", &url.Error{Op: "Get", URL: tc.url, Err: errors.New("refused")})
		if got := dialledErr(err, tc.apiURL).Error(); got != "checking the bot token: "+tc.want {
			t.Errorf("dialledErr(%q, %q) = %q, want %q", tc.url, tc.apiURL, got, tc.want)
		}
	}
}
