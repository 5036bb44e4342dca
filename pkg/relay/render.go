package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/redact"
)

// Markup is the text dialect of a chat service, for the little markup the
// relay adds itself (a bold title). Escaping agent text (Slack's &, <, >)
// is the adapter's job, done after rendering: part limits count the code
// points of the rendered text, before that escaping.
type Markup int

const (
	// Markdown is Discord's: **bold**. The zero value.
	Markdown Markup = iota
	// Mrkdwn is Slack's: *bold*.
	Mrkdwn
	// Plain is text without markup (Telegram without a parse mode):
	// a title is written as it is.
	Plain
)

func (k Markup) bold(s string) string {
	switch k {
	case Mrkdwn:
		return "*" + s + "*"
	case Plain:
		return s
	}
	return "**" + s + "**"
}

// RenderOptions are a daemon's settings that shape what it posts.
type RenderOptions struct {
	Redact  bool   // the spec's redact: scrub with redact.Content
	Home    string // the daemon user's home directory, for Redact
	Verbose bool   // the spec's verbosity: verbose (else lean)
	Limit   int    // the Poster's PartLimit; at least 1
	Markup  Markup
	// Ping are the users an ask mentions (the authorized users, when the
	// spec says pingOnAsk); nil mentions no one.
	Ping []string
	// LongTextAsFile is the spec's longTextAsFile: a message whose text
	// renders to more parts posts its first part and the whole text as a
	// file (Rendered.TextFile); 0 is off.
	LongTextAsFile int
}

// Rendered is what a message becomes at the service. Every field is a
// pure function of the message and the options, so the relay gets the
// same texts again after a crash (the journal records parts by index and
// the Discord lookup compares exact content).
type Rendered struct {
	// Skip: lean verbosity drops this message; nothing else is set.
	Skip bool
	// Root is the session's root line, posted in the channel when the
	// session has none yet (the engine decides when): the title in bold,
	// then the session id in code, "**Title** · session `s1`", or
	// "session `s1`" without a title. It always ends with the session id
	// (or, redacted, a digest of it), so the roots of different sessions
	// differ, which the lookup after a crash relies on.
	Root string
	// ThreadName names the session's thread (Discord): the title, or the
	// session id without one, on one line, cut to 100 code points.
	ThreadName string
	// Parts are the texts to post in the thread, in order, each at most
	// Limit code points; none when the message has nothing to say.
	Parts []string
	// Close: the message closes its session; CloseLine is then the line
	// that says so, posted after Parts.
	Close     bool
	CloseLine string
	// Ask is what an ask's last part carries besides its text: its
	// buttons, and whom it mentions.
	Ask decoration
	// TextFile, set when the text renders to more than LongTextAsFile
	// parts, is the whole text as a file, posted after Parts, which then
	// hold only the first part.
	TextFile *TextFile
}

// TextFile is a message's whole text as a file (longTextAsFile).
type TextFile struct {
	Name        string // "<message id>.md"
	ContentType string
	Content     string // the body as rendered (redacted), before splitting
}

// textFileType is the long text's file's content type.
const textFileType = "text/markdown; charset=utf-8"

const (
	closeLine     = "Session closed."
	maxThreadName = 100 // Discord's limit on a thread's name
	actionPrefix  = "▶ "
	errorPrefix   = "⚠ "
	// redactedSession stands for a session id that is itself token-like.
	redactedSession = "[redacted]-"
)

// Render renders m (defaults applied) for posting, by these rules:
//
//   - Verbosity: lean (Verbose false) skips event message at level info;
//     it posts action and error messages and every open and close.
//     Verbose posts everything.
//   - Parts: for message and close, the title (on one line, in bold) as
//     the first line, then the text; for open, the text only (its title
//     is in Root). Level action starts the first line with "▶ ", error
//     with "⚠ " (on a line of its own when the text starts with a code
//     fence, which must start its line). No title and a blank text give
//     no parts.
//   - Redaction (Redact): the title, the text and a token-like session id
//     are scrubbed before anything is split, so the parts, the root and
//     the thread name journaled and posted never hold what was scrubbed.
//   - The body is then cut with Split(body, Limit).
//   - Close: Close is set and CloseLine is "Session closed.".
//
// A title or text is expected valid (bus.Message.Validate); invalid UTF-8
// reads as U+FFFD.
func Render(m bus.Message, o RenderOptions) Rendered {
	m = m.WithDefaults()
	if LeftOut(m, o.Verbose) {
		return Rendered{Skip: true}
	}
	title := oneLine(m.Title)
	text := m.Text
	session := m.Session
	if o.Redact {
		title = oneLine(redact.Content(title, o.Home))
		text = redact.Content(text, o.Home)
		session = sessionLabel(session, o.Home)
	}
	r := Rendered{
		Root:       root(title, session, o),
		ThreadName: threadName(title, session),
	}
	if m.Event == bus.EventOpen {
		title = ""
	}
	if body := compose(title, text, m.Level, o.Markup); body != "" {
		r.Parts = Split(body, partLimit(m, o))
		if n := o.LongTextAsFile; n > 0 && m.Event == bus.EventMessage && len(r.Parts) > n {
			r.Parts = r.Parts[:1]
			r.TextFile = &TextFile{Name: m.ID + ".md", ContentType: textFileType, Content: body}
		}
	}
	if m.Event == bus.EventClose {
		r.Close, r.CloseLine = true, closeLine
	}
	if m.Event == bus.EventAsk {
		r.Ask = decoration{choices: choicesOf(m), ping: o.Ping}
	}
	return r
}

// mentionReserve is the room an ask's part leaves for each mention the
// poster adds (Discord's "<@" + a 20-digit id + "> " is 24; the others'
// are shorter), so that every mention of pingOnAsk fits.
const mentionReserve = 32

// partLimit is the length m's parts are cut to: the poster's limit, less
// the room of an ask's mentions (its parts are all cut alike, so that a
// part's text does not depend on which is last).
func partLimit(m bus.Message, o RenderOptions) int {
	if m.Event != bus.EventAsk || len(o.Ping) == 0 {
		return o.Limit
	}
	return max(o.Limit/2, o.Limit-mentionReserve*len(o.Ping))
}

// LeftOut reports whether a daemon's verbosity (verbose or lean) leaves
// m out: lean posts no event message at level info (defaults applied:
// no event is a message, no level is info). The one rule for the relay,
// which moves such a message to sent/ unposted and counts it (filtered),
// and for send, which says so when it writes one.
func LeftOut(m bus.Message, verbose bool) bool {
	m = m.WithDefaults()
	return !verbose && m.Event == bus.EventMessage && m.Level == bus.LevelInfo
}

// compose is the text of a message's parts before splitting, "" for
// nothing to post.
func compose(title, text, level string, k Markup) string {
	text = strings.TrimSpace(text)
	if title == "" && text == "" {
		return ""
	}
	prefix := ""
	switch level {
	case bus.LevelAction:
		prefix = actionPrefix
	case bus.LevelError:
		prefix = errorPrefix
	}
	switch {
	case title != "" && text != "":
		return prefix + k.bold(title) + "\n" + text
	case title != "":
		return prefix + k.bold(title)
	case prefix != "" && strings.HasPrefix(text, fenceMark):
		return strings.TrimSpace(prefix) + "\n" + text
	default:
		return prefix + text
	}
}

// root is the session's root line, the title cut so that it fits Limit.
func root(title, session string, o RenderOptions) string {
	tail := "session `" + session + "`"
	if title == "" {
		return tail
	}
	tail = " · " + tail
	room := o.Limit - len([]rune(o.Markup.bold(""))) - len([]rune(tail))
	if room < 1 {
		return strings.TrimPrefix(tail, " · ")
	}
	return o.Markup.bold(cut(title, room)) + tail
}

// continuedNote is the line a session's place made again adds to its
// root line: the thread before it was deleted.
const continuedNote = "(continues this session's thread, which was deleted)"

// continuedRoot is the root line of a session's place made again: the
// session's first root line (first; fallback, the current message's, when
// the journal kept none), then continuedNote.
func continuedRoot(first, fallback string) string {
	if first == "" {
		first = fallback
	}
	return first + "\n" + continuedNote
}

func threadName(title, session string) string {
	if title == "" {
		title = session
	}
	return cut(title, maxThreadName)
}

// sessionLabel is the session id as shown when redacting: as it is,
// unless it is token-like itself, then a digest of it, so that different
// sessions still read differently (a session id is [A-Za-z0-9._:-], so
// the label, with its "[", is no other session's id).
func sessionLabel(session, home string) string {
	if redact.Content(session, home) == session {
		return session
	}
	sum := sha256.Sum256([]byte(session))
	return redactedSession + hex.EncodeToString(sum[:8])
}

// oneLine folds white space, line breaks included, into single spaces: a
// title is shown on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut keeps the first max code points of s, and no white space at its
// end.
func cut(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return strings.TrimSpace(string(r[:max]))
}
