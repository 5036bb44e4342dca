package relay

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/bus"
)

func msg(event, level, title, text string) bus.Message {
	return bus.Message{ID: "m1", Session: "s1", Event: event, Level: level, Title: title, Text: text}
}

func TestRender(t *testing.T) {
	lean := RenderOptions{Limit: 2000}
	verbose := RenderOptions{Limit: 2000, Verbose: true}
	slack := RenderOptions{Limit: 3900, Verbose: true, Markup: Mrkdwn}
	discordRoot := "**Deploy** · session `s1`"
	cases := []struct {
		name string
		m    bus.Message
		o    RenderOptions
		want Rendered
	}{
		{"lean skips an info message", msg("message", "info", "T", "hi"), lean, Rendered{Skip: true}},
		{"lean skips by default (no event, no level)", msg("", "", "T", "hi"), lean, Rendered{Skip: true}},
		{"lean posts an action", msg("message", "action", "", "running tests"), lean,
			Rendered{Root: "session `s1`", ThreadName: "s1", Parts: []string{"▶ running tests"}}},
		{"lean posts an error", msg("message", "error", "", "tests failed"), lean,
			Rendered{Root: "session `s1`", ThreadName: "s1", Parts: []string{"⚠ tests failed"}}},
		{"lean posts an info open", msg("open", "info", "Deploy", ""), lean,
			Rendered{Root: discordRoot, ThreadName: "Deploy"}},
		{"lean posts an info close", msg("close", "info", "", ""), lean,
			Rendered{Root: "session `s1`", ThreadName: "s1", Close: true, CloseLine: "Session closed."}},
		{"verbose posts an info message", msg("message", "info", "", "hi"), verbose,
			Rendered{Root: "session `s1`", ThreadName: "s1", Parts: []string{"hi"}}},
		{"title in bold, then the text", msg("message", "info", "Deploy", "step 1\nstep 2"), verbose,
			Rendered{Root: discordRoot, ThreadName: "Deploy", Parts: []string{"**Deploy**\nstep 1\nstep 2"}}},
		{"title only", msg("message", "action", "Deploy", " \n"), verbose,
			Rendered{Root: discordRoot, ThreadName: "Deploy", Parts: []string{"▶ **Deploy**"}}},
		{"Slack bold", msg("message", "error", "Deploy", "boom"), slack,
			Rendered{Root: "*Deploy* · session `s1`", ThreadName: "Deploy", Parts: []string{"⚠ *Deploy*\nboom"}}},
		{"a title on one line", msg("message", "info", " Deploy\n  prod\t", "x"), verbose,
			Rendered{Root: "**Deploy prod** · session `s1`", ThreadName: "Deploy prod", Parts: []string{"**Deploy prod**\nx"}}},
		{"open: its text, not its title", msg("open", "info", "Deploy", "starting"), lean,
			Rendered{Root: discordRoot, ThreadName: "Deploy", Parts: []string{"starting"}}},
		{"a prefix before a fence gets its own line", msg("message", "error", "", "```\npanic\n```"), lean,
			Rendered{Root: "session `s1`", ThreadName: "s1", Parts: []string{"⚠\n```\npanic\n```"}}},
		{"nothing to say", msg("message", "error", "", "  \n "), lean,
			Rendered{Root: "session `s1`", ThreadName: "s1"}},
		{"close with a title and text", msg("close", "info", "Deploy", "done in 3 min"), lean,
			Rendered{Root: discordRoot, ThreadName: "Deploy", Parts: []string{"**Deploy**\ndone in 3 min"}, Close: true, CloseLine: "Session closed."}},
		{"split at the limit", msg("message", "info", "", "aaaa bbbb cccc"), RenderOptions{Verbose: true, Limit: 9},
			Rendered{Root: "session `s1`", ThreadName: "s1", Parts: []string{"aaaa bbbb", "cccc"}}},
		{"the prefix counts toward the limit", msg("message", "action", "", "aaaa bbbb"), RenderOptions{Limit: 9},
			Rendered{Root: "session `s1`", ThreadName: "s1", Parts: []string{"▶ aaaa", "bbbb"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Render(c.m, c.o)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Render\n got %+v\nwant %+v", got, c.want)
			}
			if again := Render(c.m, c.o); !reflect.DeepEqual(got, again) {
				t.Fatalf("not deterministic: %+v then %+v", got, again)
			}
		})
	}
}

func TestRenderThreadName(t *testing.T) {
	long := strings.Repeat("é", 99) + " tail"
	got := Render(msg("open", "info", long, ""), RenderOptions{Limit: 2000}).ThreadName
	if want := strings.Repeat("é", 99); got != want {
		t.Fatalf("ThreadName = %q (%d code points), want 99 é (the cut's trailing space trimmed)", got, utf8.RuneCountInString(got))
	}
	got = Render(msg("open", "info", strings.Repeat("x", 300), ""), RenderOptions{Limit: 2000}).ThreadName
	if n := utf8.RuneCountInString(got); n != 100 {
		t.Fatalf("ThreadName has %d code points, want 100", n)
	}
}

func TestRenderRootFitsLimit(t *testing.T) {
	m := msg("open", "info", strings.Repeat("t", 256), "")
	r := Render(m, RenderOptions{Limit: 60})
	if n := utf8.RuneCountInString(r.Root); n > 60 || !strings.HasSuffix(r.Root, " · session `s1`") {
		t.Fatalf("Root = %q (%d code points), want at most 60 ending with the session", r.Root, n)
	}
}

// TestRenderRootsDiffer: the lookup after a crash tells sessions' roots
// apart by their text, so different sessions never share a root, whatever
// their titles, redacted or not.
func TestRenderRootsDiffer(t *testing.T) {
	sessions := []string{"a", "b", "s1", "s1:x", "xoxb-1111-2222-aaaa", "xoxb-1111-2222-bbbb", "xoxp-9-9-9"}
	titles := []string{"", "x", "x** · session `b", "xoxb-1111-2222-cccc", "session `a`"}
	for _, redacting := range []bool{false, true} {
		seen := map[string]string{}
		for _, s := range sessions {
			for _, title := range titles {
				m := bus.Message{ID: "m", Session: s, Event: "open", Level: "info", Title: title}
				root := Render(m, RenderOptions{Limit: 2000, Redact: redacting}).Root
				if other, ok := seen[root]; ok && other != s {
					t.Fatalf("redact=%v: sessions %q and %q share the root %q", redacting, other, s, root)
				}
				seen[root] = s
			}
		}
	}
}

// TestRenderRedactsBeforeSplitting: a token cut by a split would no
// longer look like one, so redaction must come first; the secret must be
// in no part, and neither in the root nor the thread name.
func TestRenderRedactsBeforeSplitting(t *testing.T) {
	const secret = "AbCdEfGhIjKlMnOpQrStUvWx"
	token := "xoxb-1234567890-" + secret
	m := bus.Message{ID: "m", Session: "s1", Event: "message", Level: "error",
		Title: "leak " + token + " in /home/alice/src",
		Text:  strings.Repeat("word ", 3) + token + "\n```sh\nexport T=" + token + "\ncat /home/alice/.env /home/bob/.env\n```"}
	o := RenderOptions{Limit: 20, Redact: true, Home: "/home/alice"}
	r := Render(m, o)
	if len(r.Parts) < 2 {
		t.Fatalf("want a split, got %q", r.Parts)
	}
	all := strings.Join(append([]string{r.Root, r.ThreadName}, r.Parts...), "\n")
	for _, leak := range []string{secret[:8], secret[8:16], secret[16:], "alice", "bob"} {
		if strings.Contains(all, leak) {
			t.Errorf("%q survived in %q", leak, all)
		}
	}
	if !strings.Contains(r.ThreadName, "~/src") || !strings.Contains(all, "[redacted]") {
		t.Errorf("redaction placeholders missing: %q", all)
	}
	// Without Redact the same message keeps its text: the option is what
	// scrubs.
	plain := Render(m, RenderOptions{Limit: 20})
	if !strings.Contains(strings.Join(plain.Parts, ""), secret[:8]) {
		t.Fatalf("without Redact the text changed: %q", plain.Parts)
	}
}
