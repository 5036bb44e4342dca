package discord

import (
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
