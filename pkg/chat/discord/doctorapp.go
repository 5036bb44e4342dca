package discord

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/internal/rewrite"
	"gjc.dev/reconciler/pkg/doctor"
	"gjc.dev/reconciler/pkg/spec"
)

// Application flags that say the Message Content intent is on: approved
// (100 servers or more) or switched on (fewer).
const (
	flagGatewayMessageContent        = 1 << 18
	flagGatewayMessageContentLimited = 1 << 19
)

// applicationLines are the application check (the token is the
// configured application's) and the intents check (Message Content is
// on when authorizedUserIds needs it), from GET applications/@me.
func applicationLines(ctx context.Context, s *discordgo.Session, d *spec.DiscordConfig) []doctor.Line {
	app, err := currentApplication(ctx, s)
	if err != nil {
		return []doctor.Line{doctor.Fail("application", fmt.Sprintf(
			"could not ask Discord which application the bot is: %v; check the network (and apiURL if set)", rewrite.DialledErr(err, d.APIURL)))}
	}
	return []doctor.Line{applicationLine(app, d.ApplicationID), intentsLine(app, d)}
}

// currentApplication is GET applications/@me, which discordgo has no call for.
func currentApplication(ctx context.Context, s *discordgo.Session) (*discordgo.Application, error) {
	endpoint := discordgo.EndpointApplication("@me")
	body, err := s.RequestWithBucketID("GET", endpoint, nil, endpoint, discordgo.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	var app discordgo.Application
	if err := json.Unmarshal(body, &app); err != nil {
		return nil, fmt.Errorf("decoding the application: %w", err)
	}
	return &app, nil
}

func applicationLine(app *discordgo.Application, want string) doctor.Line {
	if app.ID != want {
		return doctor.Fail("application", fmt.Sprintf(
			"the bot token belongs to application %s (%s), not applicationId %s: set applicationId to %s, or put application %s's bot token where botToken points",
			app.ID, app.Name, want, app.ID, want))
	}
	return doctor.Pass("application", fmt.Sprintf("%s (%s)", app.Name, app.ID))
}

func intentsLine(app *discordgo.Application, d *spec.DiscordConfig) doctor.Line {
	switch {
	case len(d.AuthorizedUserIDs) == 0:
		return doctor.Pass("intents", "no privileged intent needed: authorizedUserIds is empty, so no reply is read")
	case app.Flags&(flagGatewayMessageContent|flagGatewayMessageContentLimited) == 0:
		return doctor.Fail("intents", "the privileged Message Content intent is off, and replies from authorizedUserIds need it: "+messageContentFix(d.ApplicationID))
	}
	return doctor.Pass("intents", "Message Content is on, for the replies of authorizedUserIds")
}

// messageContentFix is what to do when the Message Content intent is off:
// the same words whether doctor or the gateway's 4014 found it.
func messageContentFix(appID string) string {
	return fmt.Sprintf("enable \"Message Content Intent\" under Bot > Privileged Gateway Intents for application %s in the Discord Developer Portal, "+
		"or leave authorizedUserIds empty", appID)
}
