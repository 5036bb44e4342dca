package redact

import (
	"fmt"
	"strings"
	"testing"
)

func TestContentHomes(t *testing.T) {
	const home = "/home/alice"
	cases := []struct{ in, home, want string }{
		{"/home/alice/src/x", home, "~/src/x"},
		{"cd /home/alice", home, "cd ~"},
		{"in /home/alice.", home, "in ~."},
		{"(/home/alice/a, /home/alice/b)", home, "(~/a, ~/b)"},
		{"`/home/alice/.config/x`", home, "`~/.config/x`"},
		{"home given with a slash: /home/alice/x", "/home/alice/", "home given with a slash: ~/x"},
		{"/home/alice2/x is someone else", home, "/home/[user]/x is someone else"},
		{"/home/alice.bak/x", home, "/home/[user]/x"},
		{"glued: /mnt/home/alice/x", home, "glued: /mnt/home/[user]/x"},
		{"/home/bob/src and /Users/carol/Documents", home, "/home/[user]/src and /Users/[user]/Documents"},
		{"macOS: /Users/alice/work", "/Users/alice", "macOS: ~/work"},
		{"no home: /home/alice/x", "", "no home: /home/[user]/x"},
		{"a relative home is ignored: /home/alice/x", "home/alice", "a relative home is ignored: /home/[user]/x"},
		{"/ as home is ignored: /etc/passwd", "/", "/ as home is ignored: /etc/passwd"},
		{"a home off /home: /var/lib/agent/run and /var/lib/agentx", "/var/lib/agent", "a home off /home: ~/run and /var/lib/agentx"},
		{"/home/ alone and /homes/x stay", home, "/home/ alone and /homes/x stay"},
		{"again: /home/[user]/x", home, "again: /home/[user]/x"},
		{"/home/alice/home/alice/x", home, "~/home/[user]/x"},
		{"/home/alice:/home/alice", home, "~:~"},
	}
	for _, c := range cases {
		got := Content(c.in, c.home)
		if got != c.want {
			t.Errorf("Content(%q, %q) = %q, want %q", c.in, c.home, got, c.want)
		}
		if again := Content(got, c.home); again != got {
			t.Errorf("Content is not stable on %q: %q", got, again)
		}
	}
}

func TestContentKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"the Bot reconnected after a restart",
		"Bearer tokens are checked by the gateway",
		"build 1234-5678 passed in 3.2 s; see docs/relay.md",
		"version v1.2.3 of github.com/x/y",
		"~/src stays as it is",
	} {
		if got := Content(s, "/home/alice"); got != s {
			t.Errorf("Content(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestContentNeverLeaks: every token shape, in every way an agent's text
// may quote it, comes out without its secret part.
func TestContentNeverLeaks(t *testing.T) {
	secrets := []struct{ token, secret string }{
		{"xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv", "AbCdEfGhIjKlMnOpQrStUv"},
		{"xoxp-1111-2222-3333-q1w2e3r4t5y6u7i8", "q1w2e3r4t5y6u7i8"},
		{"xoxe-1-My1xNTA0OTk2ODY5OTctWFhYWFg", "My1xNTA0OTk2ODY5OTctWFhYWFg"},
		{"xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAxMi0xMjM0", "Mi0yLTEyMzQ1Njc4OTAxMi0xMjM0"},
		{"xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f6a7b", "0a1b2c3d4e5f6a7b"},
		{"MTIzNDU2Nzg5MDEyMzQ1Njc4OTA.GhIjKl.abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123"},
		{"ODk5MTIzNDU2Nzg5MDEyMzQ1Ng.Yx-_9a.Zz0_Yy1-Xx2_Ww3-Vv4_Uu5-Tt6_Ss7", "Zz0_Yy1-Xx2_Ww3-Vv4_Uu5-Tt6_Ss7"},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc", "eyJhbGciOiJIUzI1NiJ9"},
		{"BEARER abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012345"},
		{"Bot MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3", "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3"},
		{"https://hooks.slack.com/services/T0001/B0002/XyZsecretWebhook123", "XyZsecretWebhook123"},
		{"https://discord.com/api/webhooks/123456789012345678/abcDEF-ghiJKL_mno", "abcDEF-ghiJKL_mno"},
	}
	wrappers := []string{
		"%s",
		"token %s here",
		"`%s`",
		"```\n%s\n```",
		"```sh\nexport SLACK_TOKEN=%s\n```",
		`{"token":"%s"}`,
		"SLACK_TOKEN=%s",
		"TOKEN_%s",
		"(%s)",
		"<%s>",
		"'%s'",
		"%s.",
		"%s,next",
		"**%s**",
		"> %s",
		"line one\n\n%s\n\nline three",
		"Authorization: %s",
	}
	for _, s := range secrets {
		for _, w := range wrappers {
			in := fmt.Sprintf(w, s.token)
			out := Content(in, "/home/alice")
			if strings.Contains(out, s.secret) {
				t.Errorf("Content(%q) = %q: the secret survived", in, out)
			}
			if !strings.Contains(out, Placeholder) {
				t.Errorf("Content(%q) = %q: no placeholder", in, out)
			}
		}
	}
}

// FuzzContent: whatever the text, nothing token-shaped is left (a second
// pass finds nothing to scrub), and the same text scrubs the same.
func FuzzContent(f *testing.F) {
	f.Add("token xoxb-1-2-abc in /home/alice/x and /Users/bob", "/home/alice")
	f.Add("Bearer abcdefghijklmnopqrstuvwxyz TOKEN_xapp-1-2", "")
	f.Add("MTIzNDU2Nzg5MDEyMzQ1Njc4OTA.GhIjKl.abcdefghijklmnopqrstuvwxyz0123", "/root")
	f.Add("xoxb-1\u200b-2\u00ad-abc ｘｏｘｂ-9 MTIzNDU2Nzg5MDEyMzQ1Njc4OTA%2EGhIjKl%2eabcdefghijklmnopqrstuvwxyz0123", "")
	f.Add("Ｂｅａｒｅｒ\u2060 abcdefghijklmnopqrstuvwxyz ﬁ%2e%2E 🏳️\u200d🌈", "/home/alice")
	f.Fuzz(func(t *testing.T, s, home string) {
		out := Content(s, home)
		if again := Content(s, home); again != out {
			t.Fatalf("not deterministic: %q then %q", out, again)
		}
		if again := Content(out, ""); again != out {
			t.Fatalf("a second pass still scrubs %q into %q", out, again)
		}
	})
}
