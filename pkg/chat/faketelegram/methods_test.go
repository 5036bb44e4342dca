package faketelegram_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

func TestGetMeAndTokens(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	me, err := newBot(t, f).GetMe(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if me.ID != 7000000001 || !me.IsBot || me.Username != faketelegram.DefaultBotUsername {
		t.Fatalf("getMe = %+v", me)
	}
	for token, want := range map[string]string{
		"7000000002:AAFakeTokenFakeTokenFakeTokenFake00": "Unauthorized",
		"no-colon-at-all": "Unauthorized: invalid token specified",
	} {
		_, err := bot.New(token, bot.WithServerURL(f.URL()))
		if !errors.Is(err, bot.ErrorUnauthorized) || !strings.HasSuffix(err.Error(), ", "+want) {
			t.Errorf("token %q: %v, want %q", token, err, want)
		}
	}
	if _, r := call(t, f, "noSuchMethod", nil); r.ErrorCode != 404 || r.Description != "Not Found: method not found" {
		t.Fatalf("unknown method: %+v", r)
	}
}

// Ids are sequential per chat whoever writes, and service messages (a
// topic's creation and closing) take one too: the provider's probe
// relies on it.
func TestMessageIDsAreSequentialPerChat(t *testing.T) {
	t.Parallel()
	other := int64(-1002000000002)
	f := start(t, faketelegram.Options{Chats: []faketelegram.Chat{{ID: chat, Forum: true, LastMessageID: 40}, {ID: other}}})
	b := newBot(t, f)

	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "session one"})
	if err != nil {
		t.Fatal(err)
	}
	if topic.MessageThreadID != 41 || topic.Name != "session one" {
		t.Fatalf("topic %+v, want thread 41", topic)
	}
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, MessageThreadID: topic.MessageThreadID, Text: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != 42 || m.MessageThreadID != 41 || !m.IsTopicMessage || m.ReplyToMessage == nil || m.ReplyToMessage.ForumTopicCreated == nil {
		t.Fatalf("message %+v", m)
	}
	in, err := f.InjectMessage(faketelegram.Inbound{From: alice, Thread: int64(topic.MessageThreadID), Text: "a reply"})
	if err != nil || in.ID != 43 {
		t.Fatalf("inbound %+v, %v", in, err)
	}
	if ok, err := b.CloseForumTopic(ctx(t), &bot.CloseForumTopicParams{ChatID: chat, MessageThreadID: 41}); !ok || err != nil {
		t.Fatalf("close: %v", err)
	}
	m, err = b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "in General"})
	if err != nil || m.ID != 45 || m.MessageThreadID != 0 {
		t.Fatalf("after the closing (44): %+v, %v", m, err)
	}
	// Another chat counts on its own: its creation is 1.
	m, err = b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: other, Text: "elsewhere", MessageThreadID: 41})
	if err != nil || m.ID != 2 || m.MessageThreadID != 0 {
		t.Fatalf("other chat (no topics: thread ignored): %+v, %v", m, err)
	}
	snap := f.Snapshot()
	if got := snap.Texts(chat, 41); len(got) != 1 || got[0] != "first" {
		t.Fatalf("topic texts %q", got)
	}
	if closing, _ := snap.Message(chat, 44); closing.Service != faketelegram.ServiceTopicClosed || closing.Thread != 41 {
		t.Fatalf("closing %+v", closing)
	}
}

func TestSendMessageRefusals(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{Chats: []faketelegram.Chat{{ID: chat, Forum: true}, {ID: -1003000000003, Forum: false}}})
	b := newBot(t, f)
	// 4,096 characters (code points, not bytes) after trimming is the most.
	long := strings.Repeat("é", 4096)
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "\n  " + long + " \n"})
	if err != nil || m.Text != long {
		t.Fatalf("4096 characters: %v", err)
	}
	cases := []struct {
		p    bot.SendMessageParams
		want string
	}{
		{bot.SendMessageParams{ChatID: chat, Text: long + "x"}, "message is too long"},
		{bot.SendMessageParams{ChatID: chat, Text: " \n "}, "message text is empty"},
		{bot.SendMessageParams{ChatID: chat, Text: "x", MessageThreadID: 999}, "message thread not found"},
		{bot.SendMessageParams{ChatID: chat, Text: "x", MessageThreadID: 1}, "message thread not found"},
		{bot.SendMessageParams{ChatID: int64(-1009000000009), Text: "x"}, "chat not found"},
		{bot.SendMessageParams{ChatID: chat, Text: "x", ReplyParameters: &models.ReplyParameters{MessageID: 999}}, "message to be replied not found"},
		{bot.SendMessageParams{ChatID: chat, Text: "x", ParseMode: "Fancy"}, "unsupported parse_mode"},
	}
	for _, c := range cases {
		_, err := b.SendMessage(ctx(t), &c.p)
		wantBadRequest(t, err, c.want)
	}
	m, err = b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "x", ReplyParameters: &models.ReplyParameters{MessageID: 999, AllowSendingWithoutReply: true}})
	if err != nil || m.ReplyToMessage != nil {
		t.Fatalf("allow_sending_without_reply: %+v, %v", m, err)
	}
	if err := f.SetBotKicked(-1003000000003, true); err != nil {
		t.Fatal(err)
	}
	_, err = b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: -1003000000003, Text: "x"})
	if !errors.Is(err, bot.ErrorForbidden) || !strings.HasSuffix(err.Error(), "Forbidden: bot was kicked from the supergroup chat") {
		t.Fatalf("kicked: %v", err)
	}
}

// Without topics a reply's message_thread_id is the root of its chain,
// and it carries the message it replies to.
func TestRepliesWithoutTopics(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{Chats: []faketelegram.Chat{{ID: chat}}})
	b := newBot(t, f)
	root, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "session root"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.InjectMessage(faketelegram.Inbound{From: alice, ReplyTo: int64(root.ID), Text: "answer"})
	if err != nil || in.Thread != int64(root.ID) {
		t.Fatalf("inbound %+v, %v", in, err)
	}
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "again", ReplyParameters: &models.ReplyParameters{MessageID: int(in.ID)}})
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageThreadID != root.ID || m.IsTopicMessage || m.ReplyToMessage == nil || m.ReplyToMessage.ID != int(in.ID) {
		t.Fatalf("reply to a reply: %+v", m)
	}
}

func TestCreateForumTopicRefusals(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{Chats: []faketelegram.Chat{{ID: chat, Forum: true}, {ID: -1003000000003}}})
	b := newBot(t, f)
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: strings.Repeat("n", 130)})
	if err != nil || len(topic.Name) != 128 {
		t.Fatalf("a long name is cut to 128: %+v, %v", topic, err)
	}
	_, err = b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "  "})
	wantBadRequest(t, err, "title must be non-empty")
	_, err = b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: -1003000000003, Name: "x"})
	wantBadRequest(t, err, "the chat is not a forum")
	_, err = b.CloseForumTopic(ctx(t), &bot.CloseForumTopicParams{ChatID: chat, MessageThreadID: 999})
	wantBadRequest(t, err, "message thread not found")
}

func TestSetMessageReaction(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	in, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	eyes := []models.ReactionType{{Type: models.ReactionTypeTypeEmoji, ReactionTypeEmoji: &models.ReactionTypeEmoji{Type: models.ReactionTypeTypeEmoji, Emoji: "👀"}}}
	for range 2 {
		if ok, err := b.SetMessageReaction(ctx(t), &bot.SetMessageReactionParams{ChatID: chat, MessageID: int(in.ID), Reaction: eyes}); !ok || err != nil {
			t.Fatalf("react: %v", err)
		}
	}
	if m, _ := f.Snapshot().Message(chat, in.ID); len(m.Reactions) != 1 || m.Reactions[0] != "👀" || m.ReactRequests != 2 {
		t.Fatalf("reactions %+v", m)
	}
	bad := []models.ReactionType{{Type: models.ReactionTypeTypeEmoji, ReactionTypeEmoji: &models.ReactionTypeEmoji{Type: models.ReactionTypeTypeEmoji, Emoji: "x"}}}
	_, err = b.SetMessageReaction(ctx(t), &bot.SetMessageReactionParams{ChatID: chat, MessageID: int(in.ID), Reaction: bad})
	wantBadRequest(t, err, "REACTION_INVALID")
	_, err = b.SetMessageReaction(ctx(t), &bot.SetMessageReactionParams{ChatID: chat, MessageID: 999, Reaction: eyes})
	wantBadRequest(t, err, "message to react not found")
}

// A JSON body, objects and numbers as JSON, is read like a form.
func TestJSONBody(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	body := `{"chat_id": -1001000000001, "text": "by json", "link_preview_options": {"is_disabled": true},
		"reply_parameters": {"message_id": 1}}`
	resp, err := http.Post(f.URL()+"/bot"+f.Token()+"/sendMessage", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		OK     bool           `json:"ok"`
		Result models.Message `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || !r.OK || r.Result.Text != "by json" || r.Result.ReplyToMessage == nil {
		t.Fatalf("%+v, %v", r, err)
	}
	if m, _ := f.Snapshot().Message(chat, 2); m.LinkPreview != `{"is_disabled": true}` || m.ReplyTo != 1 {
		t.Fatalf("stored %+v", m)
	}
}
