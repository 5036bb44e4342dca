package faketelegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// DefaultCallbackTimeout is how long after a click its callback query can
// be answered unless Options say another. The Bot API documents no
// figure, only the refusal once it passed (queryTooOld); bots see it
// after some seconds, so a fake's test of a bot that answers at once
// does not depend on the exact value.
const DefaultCallbackTimeout = 15 * time.Second

// maxAnswerText is answerCallbackQuery's limit on text: "0-200
// characters", the Bot API reference says; over it the service answers
// MESSAGE_TOO_LONG.
const maxAnswerText = 200

// queryTooOld is the Bot API server's words for the service's
// QUERY_ID_INVALID: an unknown query, one answered already, or one whose
// time to answer passed.
const queryTooOld = "query is too old and response timeout expired or query ID is invalid"

// firstQueryID is the first callback query's id: the service's are large
// numbers, sent as strings.
const firstQueryID = 4382000000000000001

// Click is a person pressing a callback button on one of the bot's
// messages (Server.Click).
type Click struct {
	Chat    int64 // 0: the first
	Message int64
	From    User // the person; From.ID is required
	// Data is the pressed button's callback_data: the message must show
	// such a button, or have been sent with one. A client that has not
	// seen an edit yet still shows a button the edit removed, and can
	// press it, so "the message originated the query can contain no
	// callback buttons with this data", as the Bot API reference warns.
	Data string
}

// CallbackQuery is a click as the fake keeps it, with the bot's answer.
type CallbackQuery struct {
	ID            string // as the update and answerCallbackQuery carry it
	Chat, Message int64
	Thread        int64 // the message's topic or thread, 0 for none
	From          User
	Data          string
	Time          time.Time // of the click: the time to answer runs from it
	// Update is the id of the callback_query update queued for the bot, 0
	// when allowed_updates left it out.
	Update int64
	// Answers counts the answerCallbackQuery calls naming it, refused ones
	// included; Answered is set by the first the service took, Answer.
	Answers  int
	Answered bool
	Answer   CallbackAnswer
}

// CallbackAnswer is what answerCallbackQuery showed the clicker.
type CallbackAnswer struct {
	Text      string
	ShowAlert bool
	URL       string
	CacheTime int64
	At        time.Time
}

// ErrNotAnswered is AwaitAnswer's error when the time to answer passed.
var ErrNotAnswered = errors.New("faketelegram: the callback query was not answered in time")

// Click makes a person press a callback button and queues the
// "callback_query" update for the bot (if allowed_updates lets it): the
// query's id, the person, the message with its keyboard, the chat's
// chat_instance and the data. It returns the query as stored.
func (s *Server) Click(c Click) (CallbackQuery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(c.Chat)
	if err != nil {
		return CallbackQuery{}, err
	}
	m := ch.liveMessage(c.Message)
	if m == nil || m.From.ID != s.bot.ID || !slices.Contains(append(m.Keyboard.Data(), m.SentKeyboard.Data()...), c.Data) {
		return CallbackQuery{}, fmt.Errorf("faketelegram: no button %q on a message %d of the bot in chat %d", c.Data, c.Message, ch.ID)
	}
	if c.From.ID == 0 {
		return CallbackQuery{}, errors.New("faketelegram: a click needs From.ID")
	}
	q := &CallbackQuery{
		ID:   strconv.FormatInt(firstQueryID+int64(len(s.queries)), 10),
		Chat: ch.ID, Message: m.ID, Thread: m.Thread, From: c.From, Data: c.Data, Time: time.Now(),
	}
	s.queries = append(s.queries, q)
	payload := map[string]any{
		"id": q.ID, "from": c.From, "message": s.wireLocked(m, true),
		"chat_instance": chatInstance(ch.ID), "data": c.Data,
	}
	if id, queued := s.queueLocked(Update{Kind: KindCallbackQuery, Chat: ch.ID, MessageID: m.ID}, payload); queued {
		q.Update = id
	}
	s.core.NotifyLocked()
	s.logf("user %d clicked %q on message %d in chat %d: query %s", c.From.ID, c.Data, m.ID, ch.ID, q.ID)
	return *q, nil
}

// chatInstance is a chat's chat_instance: a global identifier the service
// gives each chat a button was sent to; any stable number will do.
func chatInstance(chatID int64) string {
	return strconv.FormatUint(uint64(chatID)*0x9E3779B97F4A7C15>>1, 10)
}

// answerCallbackQueryLocked answers answerCallbackQuery: a query can be
// answered once, within the time to answer after its click; an unknown
// one, one answered already or one too old is QUERY_ID_INVALID, in the
// Bot API server's words.
func (s *Server) answerCallbackQueryLocked(p params) *answer {
	id := p["callback_query_id"]
	i := slices.IndexFunc(s.queries, func(q *CallbackQuery) bool { return q.ID == id })
	if i < 0 {
		return badRequest(queryTooOld)
	}
	q := s.queries[i]
	q.Answers++
	s.core.NotifyLocked()
	if utf8.RuneCountInString(p["text"]) > maxAnswerText {
		return badRequest("MESSAGE_TOO_LONG")
	}
	now := time.Now()
	if q.Answered || now.Sub(q.Time) > s.opts.CallbackTimeout {
		s.logf("answerCallbackQuery %s refused: answered %v, clicked %v ago", q.ID, q.Answered, now.Sub(q.Time))
		return badRequest(queryTooOld)
	}
	q.Answered = true
	q.Answer = CallbackAnswer{Text: p["text"], ShowAlert: p.bool("show_alert"), URL: p["url"], CacheTime: p.int("cache_time", 0), At: now}
	s.logf("callback query %s answered %v after its click", q.ID, now.Sub(q.Time))
	return ok(true)
}

// AwaitAnswer waits until the bot answered callback query id and returns
// the answer; ErrNotAnswered once the time to answer passed without one.
func (s *Server) AwaitAnswer(ctx context.Context, id string) (CallbackAnswer, error) {
	q, found := s.Snapshot().Query(id)
	if !found {
		return CallbackAnswer{}, fmt.Errorf("faketelegram: no callback query %s", id)
	}
	ctx, cancel := context.WithDeadlineCause(ctx, q.Time.Add(s.opts.CallbackTimeout), ErrNotAnswered)
	defer cancel()
	sn, err := s.WaitFor(ctx, func(sn Snapshot) bool {
		q, _ := sn.Query(id)
		return q.Answered
	})
	if err != nil {
		return CallbackAnswer{}, fmt.Errorf("callback query %s: %w", id, err)
	}
	q, _ = sn.Query(id)
	return q.Answer, nil
}
