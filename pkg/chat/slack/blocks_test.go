package slack

import (
	"strings"
	"testing"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

var approveDeny = []relay.Choice{{Data: "q01:0", Label: "Approve"}, {Data: "q01:1", Label: "Deny"}}

// An ask's part shows its text as any part does, then one button per
// choice; mentions, only of user ids and only when asked, stand outside
// the escaped text, which itself can never mention anyone.
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		choices []relay.Choice
		ping    []string
		want    string // the text, and each section's text joined
		buttons int
	}{
		{"a plain part", "a <@U9> & <!here>", nil, nil, "a &lt;@U9&gt; &amp; &lt;!here&gt;", 0},
		{"an ask", "May I? <!channel>", approveDeny, nil, "May I? &lt;!channel&gt;", 2},
		{"an ask that pings", "May I?", approveDeny, []string{"U1", "W2"}, "<@U1> <@W2>\nMay I?", 2},
		{"only user ids are mentioned", "May I?", approveDeny, []string{"<!channel>", "U1> <!here", "u1", "U"}, "May I?", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := render(tc.text, tc.choices, tc.ping)
			if c.text != tc.want {
				t.Fatalf("text %q, want %q", c.text, tc.want)
			}
			if tc.buttons == 0 {
				if c.blocks != nil {
					t.Fatalf("blocks %+v for a part with no choices", c.blocks)
				}
				return
			}
			var shown []string
			var buttons []*slackapi.ButtonBlockElement
			for _, b := range c.blocks {
				switch b := b.(type) {
				case *slackapi.SectionBlock:
					if b.Text.Type != slackapi.MarkdownType || !b.Text.Verbatim {
						t.Fatalf("section text %+v: want verbatim mrkdwn", b.Text)
					}
					shown = append(shown, b.Text.Text)
				case *slackapi.ActionBlock:
					for _, el := range b.Elements.ElementSet {
						buttons = append(buttons, el.(*slackapi.ButtonBlockElement))
					}
				}
			}
			if strings.Join(shown, "") != tc.want {
				t.Fatalf("sections show %q, want %q", shown, tc.want)
			}
			if len(buttons) != tc.buttons {
				t.Fatalf("%d buttons", len(buttons))
			}
			for i, b := range buttons {
				ch := tc.choices[i]
				style := slackapi.Style("")
				if i == 0 {
					style = slackapi.StylePrimary
				}
				if b.ActionID != ch.Data || b.Value != ch.Data || b.Text.Text != ch.Label || b.Text.Type != slackapi.PlainTextType || b.Style != style {
					t.Fatalf("button %d %+v, want %+v", i, b, ch)
				}
			}
		})
	}
}

// A part escapes to up to five times its length; each section holds at
// most Slack's 3,000 characters and no escape is cut in two.
func TestSections(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("&", 3900),
		strings.Repeat("é", 2999) + "&" + strings.Repeat("x", 5000),
		strings.Repeat("x", 3000),
		"short",
	} {
		body := escape(text)
		got := sections(body)
		if strings.Join(got, "") != body {
			t.Fatalf("sections of %d characters do not add up", len(text))
		}
		for i, s := range got {
			if n := utf8.RuneCountInString(s); n == 0 || n > sectionLimit {
				t.Fatalf("section %d has %d characters", i, n)
			}
			if j := strings.LastIndex(s, "&"); j >= 0 && !strings.Contains(s[j:], ";") {
				t.Fatalf("section %d ends inside an escape: %q", i, s[max(0, len(s)-8):])
			}
		}
	}
}

// A part that escapes past what Slack takes in one message's blocks shows
// as much as fits, marked cut; its text keeps it whole.
func TestRenderWithinBlocksBudget(t *testing.T) {
	text := strings.Repeat("a<b ", 975) // 3,900 code points, 6,825 escaped...
	long := strings.Repeat("&", 3900)   // ...19,500 escaped
	for _, tc := range []struct {
		text string
		cut  bool
	}{{text, false}, {long, true}} {
		c := render(tc.text, approveDeny, nil)
		if c.text != escape(tc.text) {
			t.Fatalf("the text is not whole")
		}
		shown, n := "", 0
		for _, b := range c.blocks {
			if s, ok := b.(*slackapi.SectionBlock); ok {
				shown += s.Text.Text
				n += utf8.RuneCountInString(s.Text.Text)
			}
		}
		if n > blocksBudget {
			t.Fatalf("sections hold %d characters, over %d", n, blocksBudget)
		}
		if tc.cut != strings.HasSuffix(shown, cut) || !strings.HasPrefix(c.text, strings.TrimSuffix(shown, cut)) {
			t.Fatalf("cut %v: shown ends %q", tc.cut, shown[max(0, len(shown)-12):])
		}
		body := strings.TrimSuffix(shown, cut)
		if j := strings.LastIndex(body, "&"); j >= 0 && !strings.Contains(body[j:], ";") {
			t.Fatalf("cut inside an escape: %q", body[j:])
		}
	}
}
