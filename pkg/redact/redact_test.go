package redact

import "testing"

func TestURLs(t *testing.T) {
	cases := map[string]string{
		`dial wss://wss-primary.slack.com/link/?ticket=SECRET&app_id=A1: refused`: `dial wss://wss-primary.slack.com/link/: refused`,
		`Get "https://u:SECRET@127.0.0.1:80/api/v9/gateway?v=9": EOF`:             `Get "https://127.0.0.1:80/api/v9/gateway": EOF`,
		`no url here`: `no url here`,
	}
	for in, want := range cases {
		if got := URLs(in); got != want {
			t.Errorf("URLs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokens(t *testing.T) {
	cases := map[string]string{
		"invalid_auth for xoxb-1234-5678-AbCdEf":                                   "invalid_auth for [redacted]",
		"app token xapp-1-A02-345-abcdef refused":                                  "app token [redacted] refused",
		"token MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123 bad": "token [redacted] bad",
		"Authorization: Bot MTIzNDU2Nzg5MDEyMzQ1Njc4":                              "Authorization: Bot [redacted]",
		"header Bearer abc.def-ghi_jkl-mno.pqrs":                                   "header Bearer [redacted]",
		"the Bot reconnected after a restart":                                      "the Bot reconnected after a restart",
		"pid 42 exited with code 1 (failed)":                                       "pid 42 exited with code 1 (failed)",
		"the bot is offline":                                                       "the bot is offline",
		// A character the matching view drops or turns into a letter only
		// borders the token: its word boundary is in the text as written.
		"key\u200bxoxb-1234567890-abcdefghij":             "key\u200b[redacted]",
		"\u2460xoxb-1234567890-abcdefghij":                "\u2460[redacted]",
		"id\u200bBot MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdefghij": "id\u200bBot [redacted]",
	}
	for in, want := range cases {
		if got := Tokens(in); got != want {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	in := `dial wss://x.example/?ticket=xoxb-1-2-3 failed; token xoxb-9-8-7`
	if got, want := Text(in), `dial wss://x.example/ failed; token [redacted]`; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}
