package main

// The rules of issue 35's Discord doctor: every permission the relay uses
// is checked; one an overwrite takes away is blamed on the overwrite; a
// channel the bot may not view (403) fails View Channel, not the channel,
// blamed on the roles when they lack it; an administrator has every permission; Message Content
// is checked when replies need it; the fake refuses a hidden channel as
// Discord does.
func init() {
	mutants = append(mutants, []mutant{
		{"doctor: Add Reactions is a required permission", "pkg/chat/discord/doctorperms.go",
			"\t{\"Add Reactions\", discordgo.PermissionAddReactions},\n", "",
			"./pkg/chat/discord", "TestPermissionLines|TestInvitePermissions|TestConformance/Doctor"},
		{"doctor: a permission an overwrite denies is blamed on the overwrite", "pkg/chat/discord/doctorperms.go",
			"\tbare.PermissionOverwrites = nil\n", "",
			"./pkg/chat/discord", "TestPermissionLines"},
		{"doctor: an administrator has the thread permissions too", "pkg/chat/discord/doctorperms.go",
			"\tif err == nil && perms&discordgo.PermissionAdministrator != 0 {\n", "\tif false {\n",
			"./pkg/chat/discord", "TestPermissionLines"},
		{"doctor: a channel the bot may not view fails View Channel, not the channel", "pkg/chat/discord/doctorchannel.go",
			"\thidden := restStatus(err) == http.StatusForbidden && gErr == nil\n", "\thidden := false && gErr == nil\n",
			"./pkg/chat/discord", "TestDoctorSays|TestConformance/Doctor"},
		{"doctor: a hidden channel's View Channel is blamed on the roles when they lack it", "pkg/chat/discord/doctorperms.go",
			"\tif base&discordgo.PermissionViewChannel == 0 {\n", "\tif base&discordgo.PermissionViewChannel == 0 && false {\n",
			"./pkg/chat/discord", "TestHiddenChannelLine"},
		{"doctor: Message Content must be on for authorizedUserIds", "pkg/chat/discord/doctorapp.go",
			"\tcase app.Flags&(flagGatewayMessageContent|flagGatewayMessageContentLimited) == 0:\n", "\tcase false:\n",
			"./pkg/chat/discord", "TestDoctorSays|TestConformance/Doctor"},
		{"fakediscord: a channel the bot may not view is 403", "pkg/chat/fakediscord/permissions.go",
			"\t\thidden := exists && !s.hasLocked(token, PermViewChannel)\n", "\t\thidden := exists && false\n",
			"./pkg/chat/fakediscord", "TestPermissionsThroughDiscordgo"},
	}...)
}
