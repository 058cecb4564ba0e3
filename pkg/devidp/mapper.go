package devidp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// session is what protocol mappers may read about the token being issued.
type session struct {
	clientID   string
	subject    string // the service-account user's id
	username   string // the service-account user's username
	remoteAddr string // the caller's IP address
}

// note returns a Keycloak user-session note; only the notes Keycloak sets on
// client-credentials sessions, and that devidp can know, exist.
func (s *session) note(name string) (string, bool) {
	switch name {
	case "client_id":
		return s.clientID, true
	case "clientHost", "clientAddress":
		return s.remoteAddr, s.remoteAddr != ""
	}
	return "", false
}

// userAttribute returns an attribute of the service-account user.
func (s *session) userAttribute(name string) (string, bool) {
	switch name {
	case "username":
		return s.username, true
	case "id":
		return s.subject, true
	}
	return "", false
}

// claimFunc adds a mapper's claim to the claims of an access token.
type claimFunc func(claims map[string]any, s *session)

// compileMapper turns a protocol mapper of the realm file into a claimFunc,
// or explains why devidp cannot honour it. Mappers that do not target access
// tokens add nothing.
func compileMapper(m ProtocolMapper) (claimFunc, error) {
	if m.Protocol != "" && m.Protocol != "openid-connect" {
		return nil, fmt.Errorf("mapper %q: protocol %q is not supported", m.Name, m.Protocol)
	}
	if m.Config["access.token.claim"] != "true" {
		return func(map[string]any, *session) {}, nil
	}
	switch m.ProtocolMapper {
	case "oidc-sub-mapper":
		return func(c map[string]any, s *session) { c["sub"] = s.subject }, nil
	case "oidc-audience-mapper":
		return audienceMapper(m)
	case "oidc-hardcoded-claim-mapper":
		return hardcodedMapper(m)
	case "oidc-usersessionmodel-note-mapper":
		note := m.Config["user.session.note"]
		return lookupMapper(m, func(s *session) (string, bool) { return s.note(note) })
	case "oidc-usermodel-attribute-mapper", "oidc-usermodel-property-mapper":
		attr := m.Config["user.attribute"]
		return lookupMapper(m, func(s *session) (string, bool) { return s.userAttribute(attr) })
	}
	return nil, fmt.Errorf("mapper %q: type %q is not implemented by devidp", m.Name, m.ProtocolMapper)
}

// hardcodedMapper sets claim.name to the fixed claim.value.
func hardcodedMapper(m ProtocolMapper) (claimFunc, error) {
	name, err := claimName(m)
	if err != nil {
		return nil, err
	}
	v, err := typed(m.Config["jsonType.label"], m.Config["claim.value"])
	if err != nil {
		return nil, fmt.Errorf("mapper %q: %w", m.Name, err)
	}
	return func(c map[string]any, _ *session) { c[name] = v }, nil
}

// lookupMapper sets claim.name to the value lookup finds, converted to the
// mapper's JSON type; an absent or unconvertible value is left out, as
// Keycloak does.
func lookupMapper(m ProtocolMapper, lookup func(*session) (string, bool)) (claimFunc, error) {
	name, err := claimName(m)
	if err != nil {
		return nil, err
	}
	label := m.Config["jsonType.label"]
	if _, err := typed(label, "0"); err != nil { // "0" converts under every supported label
		return nil, fmt.Errorf("mapper %q: %w", m.Name, err)
	}
	return func(c map[string]any, s *session) {
		raw, ok := lookup(s)
		if !ok {
			return
		}
		if v, err := typed(label, raw); err == nil {
			c[name] = v
		}
	}, nil
}

// claimName returns the mapper's claim.name; nested names (Keycloak's dotted
// paths) are not supported.
func claimName(m ProtocolMapper) (string, error) {
	name := m.Config["claim.name"]
	if name == "" || strings.Contains(name, ".") {
		return "", fmt.Errorf("mapper %q: claim.name %q must be a plain, non-empty name", m.Name, name)
	}
	return name, nil
}

// audienceMapper adds a custom audience (or a client id) to aud.
func audienceMapper(m ProtocolMapper) (claimFunc, error) {
	aud := m.Config["included.custom.audience"]
	if aud == "" {
		aud = m.Config["included.client.audience"]
	}
	if aud == "" {
		return nil, fmt.Errorf("mapper %q: no audience configured", m.Name)
	}
	return func(c map[string]any, _ *session) {
		list, _ := c["aud"].([]string)
		if !slices.Contains(list, aud) {
			c["aud"] = append(list, aud)
		}
	}, nil
}

// typed converts a mapper value to the JSON type named by Keycloak's
// jsonType.label.
func typed(label, value string) (any, error) {
	switch label {
	case "", "String":
		return value, nil
	case "long", "int":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("value %q is not a %s: %w", value, label, err)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("value %q is not a boolean: %w", value, err)
		}
		return b, nil
	case "JSON":
		if !json.Valid([]byte(value)) {
			return nil, errors.New("value is not valid JSON")
		}
		return json.RawMessage(value), nil
	}
	return nil, fmt.Errorf("jsonType.label %q is not supported", label)
}

// checkMappers reports the first mapper devidp cannot honour.
func checkMappers(ms []ProtocolMapper) error {
	_, err := compileMappers(ms)
	return err
}
