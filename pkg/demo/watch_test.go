package demo

import (
	"reflect"
	"testing"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

func TestDiscordPosts(t *testing.T) {
	root := fakediscord.Message{ID: "11", ChannelID: "10", Content: "**Build** · session `build-42`"}
	part := fakediscord.Message{ID: "12", ChannelID: "11", ParentID: "10", Content: "running tests"}
	edited := part
	edited.Content, edited.Edits = "tests pass", []string{"running tests"}
	thread := fakediscord.Thread{ID: "11", ParentID: "10", Name: "Build"}
	archived := thread
	archived.Archived, archived.Locked = true, true
	orphan := fakediscord.Message{ID: "21", ChannelID: "20", ParentID: "10", Content: "hi"}
	for _, tc := range []struct {
		name      string
		prev, cur fakediscord.Snapshot
		want      []Post
	}{
		{"nothing new", fakediscord.Snapshot{Messages: []fakediscord.Message{root}}, fakediscord.Snapshot{Messages: []fakediscord.Message{root}}, nil},
		{"root and part", fakediscord.Snapshot{}, fakediscord.Snapshot{Messages: []fakediscord.Message{root, part}, Threads: []fakediscord.Thread{thread}},
			[]Post{{Provider: "discord", Session: "build-42", Text: root.Content}, {Provider: "discord", Session: "build-42", Text: "running tests"}}},
		{"edit", fakediscord.Snapshot{Messages: []fakediscord.Message{root, part}}, fakediscord.Snapshot{Messages: []fakediscord.Message{root, edited}},
			[]Post{{Provider: "discord", Session: "build-42", Text: "tests pass", Edit: true}}},
		{"archived", fakediscord.Snapshot{Messages: []fakediscord.Message{root}, Threads: []fakediscord.Thread{thread}}, fakediscord.Snapshot{Messages: []fakediscord.Message{root}, Threads: []fakediscord.Thread{archived}},
			[]Post{{Provider: "discord", Session: "build-42", Closed: true}}},
		{"thread without a root line takes its name", fakediscord.Snapshot{}, fakediscord.Snapshot{Messages: []fakediscord.Message{orphan}, Threads: []fakediscord.Thread{{ID: "20", Name: "Hello"}}},
			[]Post{{Provider: "discord", Session: "Hello", Text: "hi"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DiscordPosts(tc.prev, tc.cur); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestSlackPosts(t *testing.T) {
	root := fakeslack.Message{Channel: "C1", TS: "1.1", Text: "*Build* · session `build-42`"}
	reply := fakeslack.Message{Channel: "C1", TS: "1.2", ThreadTS: "1.1", Text: "running tests"}
	edited := reply
	edited.Text, edited.Edits = "tests pass", []string{"running tests"}
	other := fakeslack.Message{Channel: "C1", TS: "2.1", Text: "someone else"}
	for _, tc := range []struct {
		name      string
		prev, cur fakeslack.Snapshot
		want      []Post
	}{
		{"nothing new", fakeslack.Snapshot{Messages: []fakeslack.Message{root}}, fakeslack.Snapshot{Messages: []fakeslack.Message{root}}, nil},
		{"root and reply", fakeslack.Snapshot{}, fakeslack.Snapshot{Messages: []fakeslack.Message{root, reply}},
			[]Post{{Provider: "slack", Session: "build-42", Text: root.Text}, {Provider: "slack", Session: "build-42", Text: "running tests"}}},
		{"edit", fakeslack.Snapshot{Messages: []fakeslack.Message{root, reply}}, fakeslack.Snapshot{Messages: []fakeslack.Message{root, edited}},
			[]Post{{Provider: "slack", Session: "build-42", Text: "tests pass", Edit: true}}},
		{"not a session's", fakeslack.Snapshot{}, fakeslack.Snapshot{Messages: []fakeslack.Message{other}},
			[]Post{{Provider: "slack", Text: "someone else"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SlackPosts(tc.prev, tc.cur); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestTelegramPosts(t *testing.T) {
	bot := faketelegram.User{ID: 7, IsBot: true}
	root := faketelegram.Message{ID: 2, From: bot, Text: "Build · session `build-42`"}
	topic := faketelegram.Message{ID: 3, From: bot, Service: faketelegram.ServiceTopicCreated, TopicName: "Build"}
	part := faketelegram.Message{ID: 4, From: bot, Thread: 3, Text: "running tests"}
	edited := part
	edited.Text, edited.Edits = "tests pass", []string{"running tests"}
	person := faketelegram.Message{ID: 5, From: faketelegram.User{ID: 42}, Thread: 3, Text: "ok"}
	closed := faketelegram.Message{ID: 6, From: bot, Thread: 3, Service: faketelegram.ServiceTopicClosed}
	all := []faketelegram.Message{root, topic, part}
	for _, tc := range []struct {
		name      string
		prev, cur []faketelegram.Message
		want      []Post
	}{
		{"root and part", nil, all, []Post{{Provider: "telegram", Session: "build-42", Text: root.Text}, {Provider: "telegram", Session: "build-42", Text: "running tests"}}},
		{"edit", all, []faketelegram.Message{root, topic, edited}, []Post{{Provider: "telegram", Session: "build-42", Text: "tests pass", Edit: true}}},
		{"a person's reply and the close", all, append(all[:3:3], person, closed), []Post{{Provider: "telegram", Session: "build-42", Closed: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TelegramPosts(faketelegram.Snapshot{Messages: tc.prev}, faketelegram.Snapshot{Messages: tc.cur})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
