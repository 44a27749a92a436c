--- retrace.medea.fit: least-squares fits of one parameter against another.
--
--   fit(xs, ys, model [, degree]) -> result | nil, message
-- models:
--   "linear"       y = a + b x                      coef {a, b}
--   "polynomial"   y = c0 + c1 x + ... + cd x^d     coef {c0, ..., cd} (degree d)
--   "exponential"  y = a exp(b x)   (ln y linear in x; y > 0)
--   "power"        y = a x^b        (ln y linear in ln x; x, y > 0)
--   "log"          y = a + b ln x   (x > 0)
--   "inverse"      y = a + b / x    (x ~= 0; the execution signature T(p) = a + b/p)
-- result: { model=, coef={...}, r2=, predict=function(x), n= } where r2 is
-- 1 - SS_res / SS_tot on the original y scale.
local M = {}

M.models = { "linear", "polynomial", "exponential", "power", "log", "inverse" }

-- Solve the square system A x = b (Gaussian elimination, partial pivoting).
local function solve(A, b)
  local n = #b
  for c = 1, n do
    local p = c
    for r = c + 1, n do if math.abs(A[r][c]) > math.abs(A[p][c]) then p = r end end
    if math.abs(A[p][c]) < 1e-300 then return nil end
    A[c], A[p] = A[p], A[c]
    b[c], b[p] = b[p], b[c]
    for r = c + 1, n do
      local f = A[r][c] / A[c][c]
      for k = c, n do A[r][k] = A[r][k] - f * A[c][k] end
      b[r] = b[r] - f * b[c]
    end
  end
  local x = {}
  for r = n, 1, -1 do
    local s = b[r]
    for k = r + 1, n do s = s - A[r][k] * x[k] end
    x[r] = s / A[r][r]
  end
  return x
end

-- Least-squares polynomial of degree d through (xs, ys): coefficients c0..cd.
-- x is centred and scaled first for a well-conditioned normal system.
local function polyfit(xs, ys, d)
  local n = #xs
  local lo, hi = math.huge, -math.huge
  for i = 1, n do lo = math.min(lo, xs[i]); hi = math.max(hi, xs[i]) end
  local mid, half = (lo + hi) / 2, (hi - lo) / 2
  if half == 0 then half = 1 end
  local A, b = {}, {}
  for r = 1, d + 1 do
    A[r] = {}
    for c = 1, d + 1 do A[r][c] = 0 end
    b[r] = 0
  end
  for i = 1, n do
    local u = (xs[i] - mid) / half
    local pw = {}
    pw[1] = 1
    for k = 2, 2 * d + 1 do pw[k] = pw[k - 1] * u end
    for r = 1, d + 1 do
      for c = 1, d + 1 do A[r][c] = A[r][c] + pw[r + c - 1] end
      b[r] = b[r] + pw[r] * ys[i]
    end
  end
  local g = solve(A, b)
  if not g then return nil end
  -- expand sum g_k ((x - mid)/half)^k into powers of x
  local coef = {}
  for k = 0, d do coef[k + 1] = 0 end
  for k = 0, d do
    -- ((x - mid)/half)^k = sum_j C(k,j) x^j (-mid)^(k-j) / half^k
    local binom = 1
    for j = 0, k do
      coef[j + 1] = coef[j + 1] + g[k + 1] * binom * (-mid) ^ (k - j) / half ^ k
      binom = binom * (k - j) / (j + 1)
    end
  end
  return coef
end

local function r_squared(xs, ys, predict)
  local n, mean = #ys, 0
  for i = 1, n do mean = mean + ys[i] end
  mean = mean / n
  local ssr, sst = 0, 0
  for i = 1, n do
    ssr = ssr + (ys[i] - predict(xs[i])) ^ 2
    sst = sst + (ys[i] - mean) ^ 2
  end
  if sst == 0 then return ssr == 0 and 1 or 0 end
  return 1 - ssr / sst
end

local function map(t, f)
  local out = {}
  for i = 1, #t do out[i] = f(t[i]) end
  return out
end

local function all_positive(t, what)
  for i = 1, #t do
    if not (t[i] > 0) then return nil, string.format("%s[%d] = %g is not positive", what, i, t[i]) end
  end
  return true
end

--- Fit ys against xs with the named model (see the header).
function M.fit(xs, ys, model, degree)
  if #xs ~= #ys then return nil, "fit: x and y differ in length" end
  local need = model == "polynomial" and (degree or 2) + 1 or 2
  if #xs < need then return nil, string.format("fit: %s needs at least %d points, got %d", model, need, #xs) end
  local res = { model = model, n = #xs }
  if model == "linear" or model == "polynomial" then
    local d = model == "linear" and 1 or (degree or 2)
    if math.type(d) ~= "integer" or d < 1 then return nil, "fit: polynomial degree must be an integer >= 1" end
    local c = polyfit(xs, ys, d)
    if not c then return nil, "fit: x values do not determine a polynomial of degree " .. d end
    res.coef, res.degree = c, d
    res.predict = function(x)
      local s = 0
      for k = #c, 1, -1 do s = s * x + c[k] end
      return s
    end
  elseif model == "exponential" then
    local ok, why = all_positive(ys, "y")
    if not ok then return nil, "fit exponential: " .. why end
    local c = polyfit(xs, map(ys, math.log), 1)
    if not c then return nil, "fit: x values are all equal" end
    local a, b = math.exp(c[1]), c[2]
    res.coef = { a, b }
    res.predict = function(x) return a * math.exp(b * x) end
  elseif model == "power" then
    local ok, why = all_positive(ys, "y")
    if ok then ok, why = all_positive(xs, "x") end
    if not ok then return nil, "fit power: " .. why end
    local c = polyfit(map(xs, math.log), map(ys, math.log), 1)
    if not c then return nil, "fit: x values are all equal" end
    local a, b = math.exp(c[1]), c[2]
    res.coef = { a, b }
    res.predict = function(x) return a * x ^ b end
  elseif model == "log" then
    local ok, why = all_positive(xs, "x")
    if not ok then return nil, "fit log: " .. why end
    local c = polyfit(map(xs, math.log), ys, 1)
    if not c then return nil, "fit: x values are all equal" end
    local a, b = c[1], c[2]
    res.coef = { a, b }
    res.predict = function(x) return a + b * math.log(x) end
  elseif model == "inverse" then
    for i = 1, #xs do
      if xs[i] == 0 then return nil, string.format("fit inverse: x[%d] is 0", i) end
    end
    local c = polyfit(map(xs, function(x) return 1 / x end), ys, 1)
    if not c then return nil, "fit: x values are all equal" end
    local a, b = c[1], c[2]
    res.coef = { a, b }
    res.predict = function(x) return a + b / x end
  else
    return nil, "fit: unknown model '" .. tostring(model) .. "' (" .. table.concat(M.models, ", ") .. ")"
  end
  res.r2 = r_squared(xs, ys, res.predict)
  local xmax, ymax = 0, 0
  for i = 1, #xs do xmax, ymax = math.max(xmax, math.abs(xs[i])), math.max(ymax, math.abs(ys[i])) end
  res.xmax, res.ymax = xmax, ymax -- the scale formula() judges rounding noise by
  return res
end

--- A readable formula of a fit result, coefficients to `digits` significant
-- digits (6) and signs folded into the operators: "y = 3.2 - 1.054 x".
function M.formula(res, digits)
  local numbers = require "retrace.numbers"
  local c = res.coef
  local function num(v) return numbers.format_number(v, digits or 6) end
  local function term(v, t) return numbers.format_signed_term(v, t, false, digits or 6) end
  if res.model == "exponential" then return "y = " .. num(c[1]) .. " exp(" .. num(c[2]) .. " x)" end
  if res.model == "power" then return "y = " .. num(c[1]) .. " x^" .. num(c[2]) end
  if res.model == "log" then return "y = " .. num(c[1]) .. " " .. term(c[2], "ln x") end
  if res.model == "inverse" then return "y = " .. num(c[1]) .. " " .. term(c[2], "/ x") end
  -- a polynomial term whose whole contribution over the data is below 1e-9 of
  -- the largest |y| is rounding noise of the solve: left out
  local function noise(k)
    return res.ymax and res.ymax > 0 and math.abs(c[k]) * (res.xmax or 1) ^ (k - 1) < 1e-9 * res.ymax
  end
  local terms = {}
  for k = 1, #c do
    if c[k] ~= 0 and not noise(k) then
      local t = k == 1 and "" or k == 2 and "x" or ("x^" .. (k - 1))
      terms[#terms + 1] = #terms == 0 and numbers.format_signed_term(c[k], t, true, digits or 6) or term(c[k], t)
    end
  end
  if #terms == 0 then terms[1] = "0" end
  return "y = " .. table.concat(terms, " ")
end

return M
