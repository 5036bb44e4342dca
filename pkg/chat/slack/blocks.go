package slack

import (
	"regexp"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

// sectionLimit is the most characters Slack takes in a section block's
// text (Block Kit reference: 3,000); an escaped part can be longer, so it
// is cut into several sections.
const sectionLimit = 3000

// blocksBudget bounds the text of all of a message's sections together.
// Slack refuses blocks whose texts add up to about 13,000 characters
// (msg_blocks_too_long; the bound is undocumented, 12,000 is the one it
// documents for a markdown block), which an escaped part of 3,900 code
// points can pass when it is mostly "&", "<" and ">": such a part shows
// as much as fits, marked cut, and its whole text stays in the message's
// text, the notification's.
const blocksBudget = 12000

// userID is what a Slack user id looks like; only such an id is ever
// wrapped in a mention, so no configured value can form another control
// sequence.
var userID = regexp.MustCompile(`^[UW][A-Z0-9]+$`)

// content is what a post sends of a part: its text (the message's text;
// with blocks, the notification's fallback) and its blocks, nil for none.
type content struct {
	text   string
	blocks []slackapi.Block
}

// render is a part as Slack shows it: the text escaped, so nothing in it
// can mention or link, preceded by a mention of each of ping (only an
// ask's last part has any, with pingOnAsk) written outside the escaped
// text; with choices, blocks too: the same in sections, then one button
// per choice, the first primary, whose action_id and value are the
// choice's data (what a click hands back).
func render(text string, choices []relay.Choice, ping []string) content {
	body := escape(text)
	if m := mentions(ping); m != "" {
		body = m + "\n" + body
	}
	c := content{text: body}
	if len(choices) == 0 {
		return c
	}
	for _, chunk := range sections(within(body, blocksBudget)) {
		c.blocks = append(c.blocks, slackapi.NewSectionBlock(
			slackapi.NewTextBlockObject(slackapi.MarkdownType, chunk, false, true), nil, nil))
	}
	buttons := make([]slackapi.BlockElement, len(choices))
	for i, ch := range choices {
		b := slackapi.NewButtonBlockElement(ch.Data, ch.Data, slackapi.NewTextBlockObject(slackapi.PlainTextType, ch.Label, false, false))
		if i == 0 {
			b = b.WithStyle(slackapi.StylePrimary)
		}
		buttons[i] = b
	}
	c.blocks = append(c.blocks, slackapi.NewActionBlock("", buttons...))
	return c
}

// mentions is "<@U1> <@U2>" for the ids that are Slack user ids.
func mentions(ids []string) string {
	var out []string
	for _, id := range ids {
		if userID.MatchString(id) {
			out = append(out, "<@"+id+">")
		}
	}
	return strings.Join(out, " ")
}

// sections cuts escaped text into pieces of at most sectionLimit
// characters, never inside an escape ("&amp;") or a mention ("<@U1>"),
// so each piece shows as its part of the whole.
func sections(s string) []string {
	var out []string
	for s != "" {
		if utf8.RuneCountInString(s) <= sectionLimit {
			return append(out, s)
		}
		// An escape or a mention open before the cut and not closed
		// before it starts the next piece.
		piece := openEscape(s, runeOffset(s, sectionLimit))
		out = append(out, piece)
		s = s[len(piece):]
	}
	return out
}

// cut is what marks shown text that was cut short.
const cut = "…"

// within is s, or as much of it as fits in limit characters with the cut
// mark, not cut inside an escape or a mention.
func within(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return openEscape(s, runeOffset(s, limit-utf8.RuneCountInString(cut))) + cut
}

// runeOffset is the byte offset of s's n-th code point (s has more).
func runeOffset(s string, n int) int {
	end := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return end
}

// openEscape is s[:end], less an escape or a mention the end would cut.
func openEscape(s string, end int) string {
	if i := strings.LastIndexAny(s[:end], "&<"); i > 0 && !strings.ContainsAny(s[i:end], ";>") {
		end = i
	}
	return s[:end]
}
