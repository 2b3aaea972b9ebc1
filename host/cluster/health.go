package cluster

import (
	"context"
	"fmt"
	"time"
)

// readyTimeout bounds the check Ready makes.
const readyTimeout = 2 * time.Second

// Ready says whether this host takes requests: nil when JetStream answers
// and the host is not stopping, else why not (for /readyz).
func (s *Service) Ready(ctx context.Context) error {
	s.mu.Lock()
	closed, draining := s.closed, s.draining
	s.mu.Unlock()
	switch {
	case closed:
		return fmt.Errorf("the backend is closed")
	case draining:
		return fmt.Errorf("this host is stopping: it takes no new runs")
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if _, err := s.h.js.AccountInfo(ctx); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return nil
}
