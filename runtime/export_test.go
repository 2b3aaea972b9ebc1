package runtime

import "context"

// Test helpers the external test package shares with this one.
var (
	ResetPeakRSS = resetPeakRSS
	PeakRSS      = peakRSS
)

// CallCountingHostCalls calls export in a fresh instance of p, as Call
// does, and also returns how many host functions the call (not the
// instance's initialisation) called.
func CallCountingHostCalls(ctx context.Context, p *Plugin, export string, input []byte) ([]byte, int, error) {
	inst, err := p.instantiate(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer inst.close()
	before := inst.st.hostCalls
	out, err := inst.call(ctx, export, input, nil)
	return out, inst.st.hostCalls - before, err
}
