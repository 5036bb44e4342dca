package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// maxTopicName is the Bot API's limit on a forum topic's name.
const maxTopicName = 128

// Options tunes a Poster; zero values take defaults.
type Options struct {
	// Timeout bounds one Bot API call (default 15 s). A post that times
	// out is Uncertain.
	Timeout time.Duration
	// StateDir is where the transport saves the chat's top (TopFile),
	// which the id probe starts from; "" knows only what this process
	// posted and the relay confirmed.
	StateDir string
}

// Poster posts a daemon's sessions to one supergroup: with topics, a
// session's root line in the General topic and its messages in a forum
// topic of its own; without, its messages as replies to its root.
type Poster struct {
	api *tgbot.Bot
	// uploads is the client of sendDocument (postFile), files that of
	// downloads (Fetch): both take as long as a file's size needs.
	uploads *tgbot.Bot
	files   *http.Client
	chat    string
	token   string // only to keep it out of error text
	opts    Options
	gate    gate
	pace    *pacer

	// probing keeps probes and posts apart: a probe edits the bot's
	// messages that nothing confirmed yet, which a post in flight (not
	// yet remembered, its done record not yet written) would be, and a
	// probe's edits of another part's message must not interleave with
	// that part's own lookup. Posts share it; a lookup holds it alone.
	probing sync.RWMutex
	// creating is held while a post is made in the chat itself (a
	// root) or a topic is made: the requests whose lost answers the
	// probes cannot tell apart by where they lie. It keeps two such
	// requests from being in flight at once; that no second place is
	// attempted while one is in doubt, after a kill too, is the relay's
	// place turn (pkg/relay/placeturn.go).
	creating sync.Mutex

	mu     sync.Mutex
	forum  *bool            // whether the chat has topics, once getChat said
	posted map[int64]string // ids this process posted or edited, as their thread and text (postedAs; see Lookup)
	topics map[int64]bool   // topics this process made, found or renamed (see LookupThread)
	top    *chatTop         // the highest id proven in the chat (the probe's bounds)
}

var _ relay.Poster = (*Poster)(nil)

// NewPoster returns a Poster for cfg's chat.
func NewPoster(cfg *spec.TelegramConfig, opts Options) (*Poster, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 15 * time.Second
	}
	api, err := newClient(cfg, opts.Timeout)
	if err != nil {
		return nil, err
	}
	if cfg.ChatID == "" {
		return nil, errors.New("telegram poster: telegram.chatId is empty")
	}
	uploads, err := newClientWith(cfg, opts.Timeout, &http.Client{})
	if err != nil {
		return nil, err
	}
	return &Poster{api: api, uploads: uploads, files: newFileClient(opts.Timeout), chat: cfg.ChatID, token: cfg.BotToken.Reveal(), opts: opts, pace: newPacer(cfg.PostsPerMinute), posted: map[int64]string{}, topics: map[int64]bool{}, top: newChatTop(cfg.ChatID, opts.StateDir)}, nil
}

// PartLimit implements relay.Poster.
func (p *Poster) PartLimit() int { return PartLimit }

// CheckChannel implements relay.Poster: getChat, which also says whether
// the group has topics.
func (p *Poster) CheckChannel(ctx context.Context) error {
	_, err := p.isForum(ctx)
	return err
}

func (p *Poster) isForum(ctx context.Context) (bool, error) {
	p.mu.Lock()
	f := p.forum
	p.mu.Unlock()
	if f != nil {
		return *f, nil
	}
	chat, err := p.api.GetChat(ctx, &tgbot.GetChatParams{ChatID: p.chat})
	if err != nil {
		e := p.fail("checking chat "+p.chat, err)
		if e.Kind != relay.Uncertain && e.Kind != relay.RateLimited {
			e.Kind, e.Reason = relay.Blocked, relay.ReasonChannelUnavailable
		}
		return false, e
	}
	forum := chat.IsForum
	p.mu.Lock()
	p.forum = &forum
	p.mu.Unlock()
	return forum, nil
}

// Post implements relay.Poster: one sendMessage, plain text (no parse
// mode), link previews off, mention-safe; in the session's topic, or as
// a reply to its root. An ask's last part carries its buttons, and with
// pingOnAsk its mentions (contentOf).
//
// A file part (part.Upload) is one sendDocument instead (postFile).
func (p *Poster) Post(ctx context.Context, part relay.Part) (string, error) {
	if part.Upload != nil {
		return p.postFile(ctx, part)
	}
	c := contentOf(part)
	params := &tgbot.SendMessageParams{ChatID: p.chat, Text: c.text, Entities: c.entities, LinkPreviewOptions: noPreview()}
	if c.keyboard != nil {
		params.ReplyMarkup = c.keyboard
	}
	var err error
	params.MessageThreadID, params.ReplyParameters, err = p.placeIn(ctx, part.Thread)
	if err != nil {
		return "", err
	}
	p.probing.RLock()
	defer p.probing.RUnlock()
	if part.Thread == "" {
		// A root, like a topic, is made one at a time (see creating).
		p.creating.Lock()
		defer p.creating.Unlock()
	}
	var m *models.Message
	err = p.posting(ctx, func() (err error) {
		m, err = p.api.SendMessage(ctx, params)
		return err
	})
	if err != nil {
		return "", p.fail("posting "+part.Key, err)
	}
	if m == nil || m.ID == 0 {
		return "", &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("posting %s: telegram answered without a message id", part.Key)}
	}
	p.remember(int64(m.ID), c.postedAs(part.Thread))
	return strconv.Itoa(m.ID), nil
}

// placeIn is where a post in thread goes: the topic, with topics; a
// reply to the session's root, without; neither for a root ("").
func (p *Poster) placeIn(ctx context.Context, thread string) (int, *models.ReplyParameters, error) {
	if thread == "" {
		return 0, nil, nil
	}
	id, err := messageID(thread)
	if err != nil {
		return 0, nil, err
	}
	forum, err := p.isForum(ctx)
	if err != nil {
		return 0, nil, err
	}
	if forum {
		return int(id), nil, nil
	}
	return 0, &models.ReplyParameters{MessageID: int(id)}, nil
}

// StartThread implements relay.Poster. Without topics a session's thread
// is its root's replies: nothing to make. With topics it is a forum
// topic named from the session's title (createForumTopic); the topic's
// id is its creation message's. A repeat would make a second topic, so
// one whose answer was lost is looked up first (LookupThread).
func (p *Poster) StartThread(ctx context.Context, rootID, name string) (string, error) {
	if rootID == "" {
		return "", &relay.Error{Kind: relay.Refused, Err: errors.New("starting a thread: no root message id")}
	}
	forum, err := p.isForum(ctx)
	if err != nil || !forum {
		return rootID, err
	}
	p.probing.RLock()
	defer p.probing.RUnlock()
	p.creating.Lock()
	defer p.creating.Unlock()
	var topic *models.ForumTopic
	err = p.posting(ctx, func() (err error) {
		topic, err = p.api.CreateForumTopic(ctx, &tgbot.CreateForumTopicParams{ChatID: p.chat, Name: topicName(name)})
		return err
	})
	if err != nil {
		return "", p.fail("creating a topic", err)
	}
	if topic == nil || topic.MessageThreadID == 0 {
		return "", &relay.Error{Kind: relay.Uncertain, Err: errors.New("creating a topic: telegram answered without a thread id")}
	}
	p.rememberTopic(int64(topic.MessageThreadID))
	return strconv.Itoa(topic.MessageThreadID), nil
}

// Edit implements relay.Poster: editMessageText with the same safety as
// a post. The same text again ("message is not modified") is success.
// It never carries reply_markup, so an edit removes an ask's buttons (an
// edit without one leaves the message without a keyboard), and never
// mentions anyone.
func (p *Poster) Edit(ctx context.Context, e relay.EditRequest) error {
	id, err := messageID(e.RemoteID)
	if err != nil {
		return err
	}
	text := safeText(e.Text)
	err = p.posting(ctx, func() error {
		_, err := p.api.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: p.chat, MessageID: int(id), Text: text, LinkPreviewOptions: noPreview()})
		return err
	})
	switch answerOf(err) {
	case Edited, NotModified:
		p.remember(id, content{text: text}.postedAs(e.Thread))
		return nil
	case NotFound:
		return &relay.Error{Kind: relay.Gone, Code: "400", Err: p.scrub(fmt.Errorf("editing %s: %w", e.RemoteID, err))}
	}
	return p.fail("editing "+e.RemoteID, err)
}

// Archive implements relay.Poster: with topics, closeForumTopic (the
// closing line was posted before it, as a part); without, nothing.
// Closing a closed topic again is success.
func (p *Poster) Archive(ctx context.Context, threadID string) error {
	forum, err := p.isForum(ctx)
	if err != nil || !forum {
		return err
	}
	id, err := messageID(threadID)
	if err != nil {
		return err
	}
	err = p.posting(ctx, func() error {
		_, err := p.api.CloseForumTopic(ctx, &tgbot.CloseForumTopicParams{ChatID: p.chat, MessageThreadID: int(id)})
		return err
	})
	if err != nil && errors.Is(err, tgbot.ErrorBadRequest) && containsAny(err.Error(), "TOPIC_NOT_MODIFIED", "TOPIC_CLOSED") {
		return nil
	}
	if err != nil {
		return p.fail("closing topic "+threadID, err)
	}
	return nil
}

// posting makes one request that posts or edits in the chat once the
// chat's budget has room for it (pace) and its gate lets it; a 429 it
// meets holds the chat back for retry_after.
func (p *Poster) posting(ctx context.Context, do func() error) error {
	release, err := p.pace.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	if err := p.gate.wait(ctx); err != nil {
		return err
	}
	err = do()
	var tooMany *tgbot.TooManyRequestsError
	if errors.As(err, &tooMany) {
		p.gate.hold(classify(err).RetryAfter)
	}
	return err
}

func (p *Poster) remember(id int64, as string) {
	p.mu.Lock()
	p.posted[id] = as
	p.mu.Unlock()
	p.top.saw(id)
}

// postedAs is what a message this process knows is: its thread, its
// kind and its text (a document's caption). Parts of two sessions may
// read alike (a closing line); a probe takes a known message for a part
// only when all match.
func (c content) postedAs(thread string) string {
	kind := "text"
	if c.file {
		kind = "file"
	}
	return thread + "\x00" + kind + "\x00" + c.text
}

// fail classifies err with context, its text scrubbed of the token.
func (p *Poster) fail(what string, err error) *relay.Error {
	e := classify(err)
	e.Err = p.scrub(fmt.Errorf("telegram %s: %w", what, err))
	return e
}

func (p *Poster) scrub(err error) error { return scrub(err, p.token) }

func noPreview() *models.LinkPreviewOptions {
	off := true
	return &models.LinkPreviewOptions{IsDisabled: &off}
}

// messageID parses a message id the relay holds (one of ours).
func messageID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, &relay.Error{Kind: relay.Refused, Err: fmt.Errorf("telegram: %q is not a message id", s)}
	}
	return id, nil
}

// topicName is a session's title as a topic's name: at most 128
// characters, never empty.
func topicName(name string) string {
	rs := []rune(name)
	if len(rs) > maxTopicName {
		rs = append(rs[:maxTopicName-1], '…')
	}
	if len(rs) == 0 {
		return "session"
	}
	return string(rs)
}

// Threads is nil or the thread lookup (relay.Poster): a second createForumTopic makes a second topic: a lost one is probed for first (LookupThread).
func (p *Poster) Threads() relay.ThreadLookup { return p }

// PlacesApart implements relay.Poster: no. Roots lie in the chat itself
// (a forum's General topic), and the id probe tells posts apart only by
// where they lie.
func (p *Poster) PlacesApart() bool { return false }
