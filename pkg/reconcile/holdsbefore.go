package reconcile

// FleetHolds are a fleet's holds (fleet) together with what this
// machine's holds.json still holds from before the fleet kept holds: a
// name an operator stopped there stays held on this machine, never
// started again by an upgrade, until `start` lets it go, which clears
// it in both places. New holds go to the fleet only.
func FleetHolds(fleet Holds, agentDir string) Holds {
	return fleetHolds{fleet: fleet, before: fileHolds{agentDir: agentDir}}
}

type fleetHolds struct {
	fleet  Holds
	before fileHolds
}

// Holds is every name held in either; one that cannot be read is an
// error, never "not held".
func (h fleetHolds) Holds() (map[string]Hold, error) {
	held, err := h.fleet.Holds()
	if err != nil {
		return nil, err
	}
	before, err := h.before.Holds()
	if err != nil {
		return nil, err
	}
	for name, hold := range before {
		if _, ok := held[name]; !ok {
			held[name] = hold
		}
	}
	return held, nil
}

func (h fleetHolds) Hold(name string) (*Hold, error) {
	hold, err := h.fleet.Hold(name)
	if err != nil || hold != nil {
		return hold, err
	}
	return h.before.Hold(name)
}

// SetHold holds name in the fleet or, with hold nil, lets it go in both.
func (h fleetHolds) SetHold(name string, hold *Hold) (bool, error) {
	if hold != nil {
		return h.fleet.SetHold(name, hold)
	}
	changed, err := h.fleet.SetHold(name, nil)
	if err != nil {
		return changed, err
	}
	before, err := h.before.SetHold(name, nil)
	return changed || before, err
}

// Unhold lets go of the fleet's hold a stop wrote: a stop never writes
// holds.json here.
func (h fleetHolds) Unhold(name string) (bool, error) { return h.fleet.Unhold(name) }

func (h fleetHolds) Shared() bool { return h.fleet.Shared() }
