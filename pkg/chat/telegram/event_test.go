package telegram

import (
	"reflect"
	"testing"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
)

func TestEventOf(t *testing.T) {
	chat := models.Chat{ID: -1001000000001}
	alice := &models.User{ID: 42}
	bot := &models.User{ID: 7, IsBot: true}
	for _, tc := range []struct {
		name string
		u    models.Update
		ok   bool
		want inbound.Event
	}{
		{"reply in a topic", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice, Text: "yes", Date: 1}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Text: "yes", Kind: inbound.Plain}},
		{"in General", models.Update{Message: &models.Message{ID: 9, Chat: chat, From: alice, Text: "yes"}},
			true, inbound.Event{ID: "9", User: "42", Text: "yes", Kind: inbound.Plain}},
		{"an edit", models.Update{EditedMessage: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice, Text: "yes!"}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Text: "yes!", Kind: inbound.Edit}},
		{"our own", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: bot, Text: "x"}},
			true, inbound.Event{ID: "9", Place: "3", User: "7", Text: "x", Kind: inbound.Plain, Bot: true, Self: true}},
		{"a service message", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Kind: inbound.Other}},
		{"a document with its caption", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice, Caption: "the log",
			Document: &models.Document{FileID: "BQ1", FileUniqueID: "u1", FileName: "run.log", MimeType: "text/plain", FileSize: 120}}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Text: "the log", Kind: inbound.Plain,
				Files: []inbound.RemoteFile{{ID: "BQ1", Name: "run.log", Size: 120, ContentType: "text/plain"}}}},
		{"a photo without a caption: its largest size", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice,
			Photo: []models.PhotoSize{{FileID: "s", FileUniqueID: "us", Width: 90, Height: 60, FileSize: 900}, {FileID: "l", FileUniqueID: "ul", Width: 1280, Height: 853, FileSize: 90000}, {FileID: "m", FileUniqueID: "um", Width: 320, Height: 213, FileSize: 9000}}}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Kind: inbound.Plain,
				Files: []inbound.RemoteFile{{ID: "l", Name: "photo-ul.jpg", Size: 90000, ContentType: "image/jpeg"}}}},
		{"a video", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice, Video: &models.Video{FileID: "v", FileUniqueID: "uv", MimeType: "video/quicktime", FileSize: 5}}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Kind: inbound.Plain,
				Files: []inbound.RemoteFile{{ID: "v", Name: "video-uv.mp4", Size: 5, ContentType: "video/quicktime"}}}},
		{"an audio file without a size", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice, Audio: &models.Audio{FileID: "a", FileUniqueID: "ua", FileName: "memo.m4a"}}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Kind: inbound.Plain,
				Files: []inbound.RemoteFile{{ID: "a", Name: "memo.m4a", Size: -1, ContentType: "audio/mpeg"}}}},
		{"a sticker is no file", models.Update{Message: &models.Message{ID: 9, MessageThreadID: 3, Chat: chat, From: alice, Sticker: &models.Sticker{FileID: "st"}}},
			true, inbound.Event{ID: "9", Place: "3", User: "42", Kind: inbound.Other}},
		{"another chat", models.Update{Message: &models.Message{ID: 9, Chat: models.Chat{ID: -1002}, From: alice, Text: "x"}}, false, inbound.Event{}},
		{"no message", models.Update{}, false, inbound.Event{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := eventOf(tc.u, testChat, 7)
			got.Time = tc.want.Time
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("eventOf = %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
