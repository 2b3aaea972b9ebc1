package main

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/wasmagent/wasmagent/internal/words"
)

// Limits that keep one expression from eating the plugin's memory or time.
const (
	maxExpression = 4096 // bytes
	maxExponent   = 4096 // |n| in x^n
	maxDigits     = 10000
	maxDepth      = 200 // nesting of parentheses and unary minus
	maxBits       = maxDigits * 10 / 3
)

// Eval evaluates an arithmetic expression exactly.
func Eval(expr string) (*big.Rat, error) {
	if len(expr) > maxExpression {
		return nil, fmt.Errorf("the expression is %s; the limit is %s", words.Count(len(expr), "byte"), words.Number(maxExpression))
	}
	p := &parser{src: expr}
	p.next()
	v, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.tok != "" {
		return nil, p.errorf("unexpected %q", p.tok)
	}
	return v, nil
}

type parser struct {
	src   string
	pos   int // start of tok
	end   int // end of tok
	tok   string
	depth int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at column %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

// next reads the next token: a number, a name, or one symbol.
func (p *parser) next() {
	i := p.end
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\n') {
		i++
	}
	p.pos = i
	if i == len(p.src) {
		p.tok, p.end = "", i
		return
	}
	j := i + 1
	switch c := p.src[i]; {
	case isDigit(c) || c == '.':
		for j < len(p.src) && (isDigit(p.src[j]) || p.src[j] == '.' || p.src[j] == '_') {
			j++
		}
		if j < len(p.src) && (p.src[j] == 'e' || p.src[j] == 'E') {
			k := j + 1
			if k < len(p.src) && (p.src[k] == '+' || p.src[k] == '-') {
				k++
			}
			if k < len(p.src) && isDigit(p.src[k]) {
				for k < len(p.src) && isDigit(p.src[k]) {
					k++
				}
				j = k
			}
		}
	case isLetter(c):
		for j < len(p.src) && (isLetter(p.src[j]) || isDigit(p.src[j])) {
			j++
		}
	case c == '*' && j < len(p.src) && p.src[j] == '*':
		j++ // ** is ^
	}
	p.tok, p.end = p.src[i:j], j
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

// expr = term { (+|-) term }
func (p *parser) expr() (*big.Rat, error) {
	v, err := p.term()
	for err == nil && (p.tok == "+" || p.tok == "-") {
		op := p.tok
		p.next()
		var r *big.Rat
		if r, err = p.term(); err == nil {
			if op == "+" {
				v = new(big.Rat).Add(v, r)
			} else {
				v = new(big.Rat).Sub(v, r)
			}
		}
	}
	return v, err
}

// term = unary { (*|/|%) unary }
func (p *parser) term() (*big.Rat, error) {
	v, err := p.unary()
	for err == nil && (p.tok == "*" || p.tok == "/" || p.tok == "%") {
		op, at := p.tok, p.pos
		p.next()
		var r *big.Rat
		if r, err = p.unary(); err != nil {
			break
		}
		switch op {
		case "*":
			v = new(big.Rat).Mul(v, r)
		case "/":
			if r.Sign() == 0 {
				return nil, fmt.Errorf("at column %d: division by zero", at+1)
			}
			v = new(big.Rat).Quo(v, r)
		case "%":
			if !v.IsInt() || !r.IsInt() {
				return nil, fmt.Errorf("at column %d: %% needs integers", at+1)
			}
			if r.Sign() == 0 {
				return nil, fmt.Errorf("at column %d: modulo by zero", at+1)
			}
			v = new(big.Rat).SetInt(new(big.Int).Rem(v.Num(), r.Num()))
		}
		err = checkSize(v)
	}
	return v, err
}

// unary = -unary | +unary | power
func (p *parser) unary() (*big.Rat, error) {
	if p.tok == "-" || p.tok == "+" {
		op := p.tok
		if p.depth++; p.depth > maxDepth {
			return nil, p.errorf("nested too deeply")
		}
		defer func() { p.depth-- }()
		p.next()
		v, err := p.unary()
		if err != nil || op == "+" {
			return v, err
		}
		return new(big.Rat).Neg(v), nil
	}
	return p.power()
}

// power = primary [ (^|**) unary ]   (right associative)
func (p *parser) power() (*big.Rat, error) {
	base, err := p.primary()
	if err != nil || (p.tok != "^" && p.tok != "**") {
		return base, err
	}
	at := p.pos
	p.next()
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	if !exp.IsInt() || exp.Num().CmpAbs(big.NewInt(maxExponent)) > 0 {
		return nil, fmt.Errorf("at column %d: the exponent must be an integer between -%d and %d", at+1, maxExponent, maxExponent)
	}
	n := exp.Num().Int64()
	if base.Sign() == 0 && n < 0 {
		return nil, fmt.Errorf("at column %d: zero to a negative power", at+1)
	}
	abs := n
	if abs < 0 {
		abs = -abs
	}
	if int64(base.Num().BitLen()+base.Denom().BitLen()-1)*abs > maxBits {
		return nil, fmt.Errorf("at column %d: the power would have more than about %s", at+1, words.Count(maxDigits, "digit"))
	}
	e := big.NewInt(abs)
	v := new(big.Rat).SetFrac(new(big.Int).Exp(base.Num(), e, nil), new(big.Int).Exp(base.Denom(), e, nil))
	if n < 0 {
		v.Inv(v)
	}
	return v, checkSize(v)
}

// primary = number | ( expr ) | name ( args )
func (p *parser) primary() (*big.Rat, error) {
	switch {
	case p.tok == "":
		return nil, p.errorf("the expression ends too soon")
	case p.tok == "(":
		if p.depth++; p.depth > maxDepth {
			return nil, p.errorf("nested too deeply")
		}
		defer func() { p.depth-- }()
		p.next()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.tok != ")" {
			return nil, p.errorf("expected )")
		}
		p.next()
		return v, nil
	case isDigit(p.tok[0]) || p.tok[0] == '.':
		v, ok := new(big.Rat).SetString(strings.ReplaceAll(p.tok, "_", ""))
		if !ok {
			return nil, p.errorf("%q is not a number", p.tok)
		}
		if err := checkSize(v); err != nil {
			return nil, err
		}
		p.next()
		return v, nil
	case isLetter(p.tok[0]):
		return p.call()
	}
	return nil, p.errorf("unexpected %q", p.tok)
}

func (p *parser) call() (*big.Rat, error) {
	name, at := p.tok, p.pos
	f, ok := functions[name]
	if !ok {
		return nil, p.errorf("unknown function %q (known: abs, min, max, floor, ceil, round)", name)
	}
	p.next()
	if p.tok != "(" {
		return nil, p.errorf("expected ( after %s", name)
	}
	if p.depth++; p.depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	defer func() { p.depth-- }()
	p.next()
	var args []*big.Rat
	for p.tok != ")" {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if p.tok == "," {
			p.next()
		} else if p.tok != ")" {
			return nil, p.errorf("expected , or )")
		}
	}
	p.next()
	v, err := f(args)
	if err != nil {
		return nil, fmt.Errorf("at column %d: %s: %w", at+1, name, err)
	}
	return v, nil
}

var functions = map[string]func([]*big.Rat) (*big.Rat, error){
	"abs":   one(func(x *big.Rat) *big.Rat { return new(big.Rat).Abs(x) }),
	"floor": one(floor),
	"ceil":  one(func(x *big.Rat) *big.Rat { return new(big.Rat).Neg(floor(new(big.Rat).Neg(x))) }),
	"round": one(func(x *big.Rat) *big.Rat {
		// Half away from zero.
		h := new(big.Rat).Add(new(big.Rat).Abs(x), big.NewRat(1, 2))
		r := floor(h)
		if x.Sign() < 0 {
			r.Neg(r)
		}
		return r
	}),
	"min": extreme(-1),
	"max": extreme(1),
}

func one(f func(*big.Rat) *big.Rat) func([]*big.Rat) (*big.Rat, error) {
	return func(args []*big.Rat) (*big.Rat, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("takes 1 argument, got %d", len(args))
		}
		return f(args[0]), nil
	}
}

func extreme(sign int) func([]*big.Rat) (*big.Rat, error) {
	return func(args []*big.Rat) (*big.Rat, error) {
		if len(args) == 0 {
			return nil, errors.New("takes at least 1 argument")
		}
		v := args[0]
		for _, a := range args[1:] {
			if a.Cmp(v) == sign {
				v = a
			}
		}
		return v, nil
	}
}

func floor(x *big.Rat) *big.Rat {
	// Euclidean division by the (positive) denominator is floor.
	return new(big.Rat).SetInt(new(big.Int).Div(x.Num(), x.Denom()))
}

func checkSize(v *big.Rat) error {
	if v.Num().BitLen()+v.Denom().BitLen() > maxBits {
		return fmt.Errorf("a value has more than about %s", words.Count(maxDigits, "digit"))
	}
	return nil
}

// Format gives v exactly (an integer or a fraction) and as a decimal with
// up to 30 significant digits after the point, trailing zeros removed.
func Format(v *big.Rat) (exact, decimal string) {
	exact = v.RatString()
	if v.IsInt() {
		return exact, exact
	}
	decimal = strings.TrimRight(strings.TrimRight(v.FloatString(30), "0"), ".")
	if d, ok := new(big.Rat).SetString(decimal); ok && d.Cmp(v) == 0 {
		exact = decimal
	}
	return exact, decimal
}
