package faketelegram_test

import (
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// The bot is an admin that may manage topics; as a member it may neither
// create a topic nor post in a closed one.
func TestBotRights(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	c, err := b.GetChat(ctx(t), &bot.GetChatParams{ChatID: chat})
	if err != nil || c.ID != chat || !c.IsForum || c.Type != models.ChatTypeSupergroup {
		t.Fatalf("getChat: %+v, %v", c, err)
	}
	cm, err := b.GetChatMember(ctx(t), &bot.GetChatMemberParams{ChatID: chat, UserID: f.BotUser().ID})
	if err != nil || cm.Administrator == nil || !cm.Administrator.CanManageTopics {
		t.Fatalf("getChatMember: %+v, %v", cm, err)
	}
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.CloseForumTopic(ctx(t), &bot.CloseForumTopicParams{ChatID: chat, MessageThreadID: topic.MessageThreadID}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, MessageThreadID: topic.MessageThreadID, Text: "an admin may"}); err != nil {
		t.Fatalf("an admin posts in a closed topic: %v", err)
	}
	if err := f.SetBotAdmin(chat, false); err != nil {
		t.Fatal(err)
	}
	if cm, err := b.GetChatMember(ctx(t), &bot.GetChatMemberParams{ChatID: chat, UserID: f.BotUser().ID}); err != nil || cm.Member == nil {
		t.Fatalf("getChatMember as a member: %+v, %v", cm, err)
	}
	_, err = b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, MessageThreadID: topic.MessageThreadID, Text: "a member may not"})
	wantBadRequest(t, err, "TOPIC_CLOSED")
	_, err = b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "t"})
	wantBadRequest(t, err, "not enough rights to create a topic")
}

// With privacy mode on, a bot that is no admin gets only replies to its
// messages, commands and mentions of itself.
func TestPrivacyMode(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{Chats: []faketelegram.Chat{{ID: chat}}})
	b := newBot(t, f)
	f.SetPrivacy(true)
	if me, err := b.GetMe(ctx(t)); err != nil || me.CanReadAllGroupMessages {
		t.Fatalf("getMe: %+v, %v", me, err)
	}
	root, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "root"})
	if err != nil {
		t.Fatal(err)
	}
	seen := func(in faketelegram.Inbound) bool {
		t.Helper()
		in.From = alice
		before := len(f.Snapshot().Updates)
		if _, err := f.InjectMessage(in); err != nil {
			t.Fatal(err)
		}
		return len(f.Snapshot().Updates) > before
	}
	if !seen(faketelegram.Inbound{Text: "plain"}) {
		t.Fatal("an admin sees everything")
	}
	if err := f.SetBotAdmin(chat, false); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{"plain": false, "hi @fakerelay_bot": true, "/status": true, "hi @someone_else": false} {
		if got := seen(faketelegram.Inbound{Text: text}); got != want {
			t.Errorf("%q seen %v, want %v", text, got, want)
		}
	}
	if !seen(faketelegram.Inbound{Text: "a reply", ReplyTo: int64(root.ID)}) {
		t.Error("a reply to the bot is not seen")
	}
}

func TestUnknownChatAndDrops(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	f.SetChannelUnknown("-1001000000001", true)
	_, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "x"})
	wantBadRequest(t, err, "chat not found")
	f.SetChannelUnknown("-1001000000001", false)

	// A waiting poll is cut; with none waiting, the next one is.
	errs := make(chan reply, 1)
	go func() { errs <- pollRaw(t, f) }()
	waitFor(t, f, "a waiting poll", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 1 })
	if n := f.DropConnections(); n != 1 {
		t.Fatalf("cut %d", n)
	}
	if r := <-errs; r.OK {
		t.Fatalf("a cut poll answered %+v", r)
	}
	waitFor(t, f, "the poll gone", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 0 })
	if n := f.DropConnections(); n != 0 {
		t.Fatalf("cut %d with none waiting", n)
	}
	if r := pollRaw(t, f); r.OK {
		t.Fatalf("the next poll answered %+v", r)
	}
	if r := poll(t, f, 0); !r.OK {
		t.Fatalf("and the one after is served: %+v", r)
	}
}
