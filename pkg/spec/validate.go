package spec

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxSafeInteger is the largest integer a JSON reader in JavaScript (the
// reference system) reads exactly; generations beyond it could not be compared.
const MaxSafeInteger = 1<<53 - 1

// Bounds for every timeout: shorter cannot let a process exit or connect,
// longer stalls the loop behind one daemon.
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 10 * time.Minute
)

// Validate checks a defaulted object. It does not resolve secrets; see Resolve.
func Validate(d *ChatDaemon) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateMeta(&d.ObjectMeta, field.NewPath("metadata"))...)
	errs = append(errs, validateSpec(&d.Spec, field.NewPath("spec"))...)
	return errs
}

func validateMeta(m *metav1.ObjectMeta, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "the daemon's name (a DNS-1123 label, also its directory name)"))
	} else {
		for _, msg := range NameErrors(m.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), m.Name, msg))
		}
	}
	// An operator who writes metadata.generation most likely meant spec.generation;
	// silently ignoring it would leave the daemon at the old generation.
	if m.Generation != 0 {
		errs = append(errs, field.Forbidden(p.Child("generation"), "set spec.generation to roll a daemon"))
	}
	if m.Namespace != "" {
		errs = append(errs, field.Forbidden(p.Child("namespace"), "ChatDaemon objects have no namespace"))
	}
	if m.GenerateName != "" {
		errs = append(errs, field.Forbidden(p.Child("generateName"), "a daemon needs a fixed name"))
	}
	return errs
}

func validateSpec(s *ChatDaemonSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Provider {
	case ProviderDiscord, ProviderSlack, ProviderTelegram:
	case "":
		errs = append(errs, field.Required(p.Child("provider"), "one of discord, slack, telegram"))
	default:
		errs = append(errs, field.NotSupported(p.Child("provider"), s.Provider, []Provider{ProviderDiscord, ProviderSlack, ProviderTelegram}))
	}
	if g := s.Generation; g != nil && !g.Valid() {
		errs = append(errs, field.Invalid(p.Child("generation"), int64(*g), fmt.Sprintf("must be >= 0 and <= %d", int64(MaxSafeInteger))))
	}
	switch s.State {
	case StateRunning, StateStopped:
	default:
		errs = append(errs, field.NotSupported(p.Child("state"), s.State, []DesiredState{StateRunning, StateStopped}))
	}
	switch s.Verbosity {
	case VerbosityLean, VerbosityVerbose:
	default:
		errs = append(errs, field.NotSupported(p.Child("verbosity"), s.Verbosity, []Verbosity{VerbosityLean, VerbosityVerbose}))
	}
	errs = append(errs, validateTimeout(s.ReadyTimeout, p.Child("readyTimeout"))...)
	errs = append(errs, validateTimeout(s.GracefulTimeout, p.Child("gracefulTimeout"))...)
	errs = append(errs, validateTimeout(s.KillTimeout, p.Child("killTimeout"))...)
	errs = append(errs, validateInboundSweep(s.InboundSweep, p.Child("inboundSweep"))...)
	errs = append(errs, validateLongTextAsFile(s.LongTextAsFile, p.Child("longTextAsFile"))...)

	// Exactly the block that matches the provider: a second block is most likely
	// a copy-paste left behind, and guessing which one is meant is unsafe.
	if s.Provider != ProviderDiscord && s.Discord != nil {
		errs = append(errs, field.Forbidden(p.Child("discord"), fmt.Sprintf("provider is %q; remove this block or change the provider", s.Provider)))
	}
	if s.Provider != ProviderSlack && s.Slack != nil {
		errs = append(errs, field.Forbidden(p.Child("slack"), fmt.Sprintf("provider is %q; remove this block or change the provider", s.Provider)))
	}
	if s.Provider != ProviderTelegram && s.Telegram != nil {
		errs = append(errs, field.Forbidden(p.Child("telegram"), fmt.Sprintf("provider is %q; remove this block or change the provider", s.Provider)))
	}
	switch s.Provider {
	case ProviderDiscord:
		if s.Discord == nil {
			errs = append(errs, field.Required(p.Child("discord"), "the discord block is required when provider is discord"))
		} else {
			errs = append(errs, validateDiscord(s.Discord, p.Child("discord"))...)
		}
	case ProviderSlack:
		if s.Slack == nil {
			errs = append(errs, field.Required(p.Child("slack"), "the slack block is required when provider is slack"))
		} else {
			errs = append(errs, validateSlack(s.Slack, p.Child("slack"))...)
		}
	case ProviderTelegram:
		if s.Telegram == nil {
			errs = append(errs, field.Required(p.Child("telegram"), "the telegram block is required when provider is telegram"))
		} else {
			errs = append(errs, validateTelegram(s.Telegram, p.Child("telegram"))...)
		}
	}
	return errs
}

func validateTimeout(d *metav1.Duration, p *field.Path) field.ErrorList {
	if d == nil || (d.Duration >= MinTimeout && d.Duration <= MaxTimeout) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, d.Duration.String(), fmt.Sprintf("must be between %v and %v", MinTimeout, MaxTimeout))}
}

func validateDiscord(d *DiscordSpec, p *field.Path) field.ErrorList {
	errs := validateSecretRef(d.BotToken, p.Child("botToken"))
	errs = append(errs, requireID(d.ApplicationID, p.Child("applicationId"))...)
	errs = append(errs, requireID(d.GuildID, p.Child("guildId"))...)
	errs = append(errs, requireID(d.ParentChannelID, p.Child("parentChannelId"))...)
	errs = append(errs, validateUserIDs(d.AuthorizedUserIDs, p.Child("authorizedUserIds"))...)
	errs = append(errs, validateAPIURL(d.APIURL, p.Child("apiURL"))...)
	errs = append(errs, validateMaxInboundFileBytes(d.MaxInboundFileBytes, p.Child("maxInboundFileBytes"))...)
	if u, err := url.Parse(d.APIURL); d.APIURL != "" && err == nil && strings.Trim(u.Path, "/") != "" {
		// The Discord client's endpoints are absolute paths: only the host
		// is replaced, so a path here would be dropped without a word.
		errs = append(errs, field.Invalid(p.Child("apiURL"), d.APIURL, "must be scheme://host[:port] only: a path is not supported for Discord"))
	}
	return errs
}

func validateSlack(s *SlackSpec, p *field.Path) field.ErrorList {
	errs := validateSecretRef(s.BotToken, p.Child("botToken"))
	errs = append(errs, validateSecretRef(s.AppToken, p.Child("appToken"))...)
	errs = append(errs, requireID(s.WorkspaceID, p.Child("workspaceId"))...)
	errs = append(errs, requireID(s.ChannelID, p.Child("channelId"))...)
	// authorizedUserId may also be in authorizedUserIds: the users are their
	// union, and a config moving from one form to the other passes through both.
	errs = append(errs, validateUserIDs(s.AuthorizedUserIDs, p.Child("authorizedUserIds"))...)
	errs = append(errs, validateAPIURL(s.APIURL, p.Child("apiURL"))...)
	errs = append(errs, validateMaxInboundFileBytes(s.MaxInboundFileBytes, p.Child("maxInboundFileBytes"))...)
	return errs
}

// validateUserIDs refuses empty entries (a user nobody is) and repeated ones:
// a repeat is most likely a paste where a different user was meant.
func validateUserIDs(ids []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	first := make(map[string]int, len(ids))
	for i, id := range ids {
		switch j, seen := first[id]; {
		case id == "":
			errs = append(errs, field.Invalid(p.Index(i), id, "must not be empty"))
		case seen:
			errs = append(errs, field.Invalid(p.Index(i), id, fmt.Sprintf("repeats index %d", j)))
		default:
			first[id] = i
		}
	}
	return errs
}

func requireID(v string, p *field.Path) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return nil
}

// validateSecretRef checks the shape of a reference; whether the secret can be
// read is Resolve's job.
func validateSecretRef(r SecretRef, p *field.Path) field.ErrorList {
	set := 0
	for _, v := range []string{r.FromEnv, r.FromFile, r.Value} {
		if v != "" {
			set++
		}
	}
	switch set {
	case 0:
		return field.ErrorList{field.Required(p, "one of fromEnv, fromFile or value")}
	case 1:
		return nil
	default:
		return field.ErrorList{field.Invalid(p, field.OmitValueType{}, "set exactly one of fromEnv, fromFile or value")}
	}
}

func validateAPIURL(raw string, p *field.Path) field.ErrorList {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url's error quotes the whole URL, which may carry a password.
		return field.ErrorList{field.Invalid(p, field.OmitValueType{}, "must be an absolute http or https URL")}
	}
	if u.User != nil {
		return field.ErrorList{field.Invalid(p, field.OmitValueType{}, "must not carry credentials; use botToken")}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return field.ErrorList{field.Invalid(p, raw, "must be an absolute http or https URL")}
	}
	return nil
}
