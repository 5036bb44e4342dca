package discord

import (
	"slices"
	"testing"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/inbound"
)

// EventOf says who wrote a Discord message and what sort it is; the
// inbound side's decision rests on these alone.
func TestEventOf(t *testing.T) {
	const self = "900"
	person := &discordgo.User{ID: "1001"}
	for _, c := range []struct {
		name      string
		m         discordgo.Message
		kind      inbound.Kind
		bot, self bool
	}{
		{"a person's message", discordgo.Message{ID: "1", ChannelID: "T1", Author: person}, inbound.Plain, false, false},
		{"a person's reply", discordgo.Message{ID: "1", ChannelID: "T1", Author: person, Type: discordgo.MessageTypeReply}, inbound.Plain, false, false},
		{"our own post", discordgo.Message{ID: "1", ChannelID: "T1", Author: &discordgo.User{ID: self, Bot: true}}, inbound.Plain, true, true},
		{"another bot", discordgo.Message{ID: "1", ChannelID: "T1", Author: &discordgo.User{ID: "1001", Bot: true}}, inbound.Plain, true, false},
		{"a system message", discordgo.Message{ID: "1", ChannelID: "T1", Author: &discordgo.User{ID: "1", System: true}}, inbound.Plain, true, false},
		{"a webhook with a person's id", discordgo.Message{ID: "1", ChannelID: "T1", Author: person, WebhookID: "77"}, inbound.Plain, true, false},
		{"a thread's starter message", discordgo.Message{ID: "1", ChannelID: "T1", Author: person, Type: discordgo.MessageTypeThreadStarterMessage}, inbound.Other, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := EventOf(&c.m, self)
			if ev.Place != "T1" || ev.Kind != c.kind || ev.Bot != c.bot || ev.Self != c.self {
				t.Fatalf("got %+v", ev)
			}
		})
	}
}

// A message's attachments are its event's files, in Discord's order.
func TestEventOfFiles(t *testing.T) {
	m := discordgo.Message{ID: "1", ChannelID: "T1", Author: &discordgo.User{ID: "1001"}, Attachments: []*discordgo.MessageAttachment{
		{ID: "a1", Filename: "shot.png", Size: 4096, ContentType: "image/png", URL: "https://cdn.discordapp.com/attachments/T1/a1/shot.png"},
		{ID: "a2", Filename: "log.txt", Size: 3, URL: "https://cdn.discordapp.com/attachments/T1/a2/log.txt"},
	}}
	got := EventOf(&m, "900").Files
	want := []inbound.RemoteFile{
		{ID: "a1", Name: "shot.png", Size: 4096, ContentType: "image/png", URL: "https://cdn.discordapp.com/attachments/T1/a1/shot.png"},
		{ID: "a2", Name: "log.txt", Size: 3, URL: "https://cdn.discordapp.com/attachments/T1/a2/log.txt"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("files = %+v, want %+v", got, want)
	}
	if files := EventOf(&discordgo.Message{ID: "2", ChannelID: "T1"}, "900").Files; files != nil {
		t.Fatalf("a message without attachments has files %+v", files)
	}
}
