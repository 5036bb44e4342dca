package rewrite

import (
	"errors"
	"fmt"
	"net/url"
	"testing"
)

func TestDialledErrLeavesOtherHostsAlone(t *testing.T) {
	for _, tc := range []struct{ apiURL, url, want string }{
		{"http://127.0.0.1:9", "https://discord.com/api/v9/users/@me", `Get "http://127.0.0.1:9/api/v9/users/@me": refused`},
		// The gateway's socket is dialled where /gateway said, not rewritten.
		{"http://127.0.0.1:9", "wss://gateway.example/?v=10", `Get "wss://gateway.example/?v=10": refused`},
		{"", "https://discord.com/api/v9/gateway", `Get "https://discord.com/api/v9/gateway": refused`},
	} {
		err := fmt.Errorf("checking the bot token: %w", &url.Error{Op: "Get", URL: tc.url, Err: errors.New("refused")})
		if got := DialledErr(err, tc.apiURL).Error(); got != "checking the bot token: "+tc.want {
			t.Errorf("DialledErr(%q, %q) = %q, want %q", tc.url, tc.apiURL, got, tc.want)
		}
	}
}
