(* Hand-written (unverified) front end: lexer and parsers for TeIL and the
   model language, producing the abstract syntax of the extracted Coq code,
   plus printing of the checker's error values.  Follows spec/lexical.md
   and spec/grammar.md; reports the first error only. *)

open Teil_core

exception Syntax of int * int * string   (* line, column, message *)

type tok = NAME of string | INT of int | KW of string | SYM of char | EOF
type token = { tok : tok; line : int; col : int }

let teil_kws = ["alloc"; "input"; "output"; "add"; "sub"; "mul"; "div"; "prod";
                "transp"; "diag"; "expa"; "proj"; "contr"]
let model_kws = ["var"; "input"; "output"]

let is_alpha c = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c = '_'
let is_digit c = c >= '0' && c <= '9'

(* 2^62 is the largest literal (R-LEX-5); OCaml's max_int is 2^62 - 1, so the
   literal 2^62 itself becomes max_int (it can only be out of range anyway). *)
let two62 = "4611686018427387904"

let lex ~model (s : string) : token array =
  let n = String.length s in
  let toks = ref [] and line = ref 1 and bol = ref 0 and i = ref 0 in
  let kws = if model then model_kws else teil_kws in
  let syms = if model then "[],:=()+-*/#.^" else "[],:=()" in
  while !i < n do
    let c = s.[!i] and col = !i - !bol + 1 in
    let push t = toks := { tok = t; line = !line; col } :: !toks in
    if c = '\n' then (incr i; incr line; bol := !i)
    else if c = ' ' || c = '\t' || c = '\r' || c = '\011' || c = '\012' then incr i
    else if (not model && c = '#') || (model && c = '/' && !i + 1 < n && s.[!i + 1] = '/') then
      while !i < n && s.[!i] <> '\n' do incr i done
    else if is_alpha c then begin
      let j = ref !i in
      while !j < n && (is_alpha s.[!j] || is_digit s.[!j]) do incr j done;
      let id = String.sub s !i (!j - !i) in
      i := !j;
      if (not model) && (id = "red" || id = "red_") && !i < n && s.[!i] = '+'
      then (incr i; push (KW "red+"))
      else push (if List.mem id kws then KW id else NAME id)
    end else if is_digit c then begin
      let j = ref !i in
      while !j < n && is_digit s.[!j] do incr j done;
      let lit = String.sub s !i (!j - !i) in
      i := !j;
      let k = ref 0 in
      while !k < String.length lit - 1 && lit.[!k] = '0' do incr k done;
      let d = String.sub lit !k (String.length lit - !k) in
      let cmp = compare (String.length d, d) (String.length two62, two62) in
      if cmp > 0 then raise (Syntax (!line, col, "integer literal too large"))
      else push (INT (if cmp = 0 then max_int else int_of_string d))
    end else if String.contains syms c then (push (SYM c); incr i)
    else raise (Syntax (!line, col, Printf.sprintf "syntax error: unexpected character '%s'"
                          (if c >= ' ' && c <= '~' then String.make 1 c
                           else Printf.sprintf "\\x%02X" (Char.code c))))
  done;
  toks := { tok = EOF; line = !line; col = !i - !bol + 1 } :: !toks;
  Array.of_list (List.rev !toks)

(* ---- parsing helpers ---- *)

type st = { toks : token array; mutable pos : int }

let peek st = st.toks.(st.pos).tok
let peek2 st = if st.pos + 1 < Array.length st.toks then st.toks.(st.pos + 1).tok else EOF
let advance st = st.pos <- st.pos + 1

let show = function
  | NAME x -> Printf.sprintf "name '%s'" x | INT v -> Printf.sprintf "integer %d" v
  | KW k -> Printf.sprintf "keyword '%s'" k | SYM c -> Printf.sprintf "'%c'" c
  | EOF -> "end of file"

let error st what =
  let t = st.toks.(st.pos) in
  match t.tok with
  | KW k when what = "a tensor name" ->
      raise (Syntax (t.line, t.col, Printf.sprintf "syntax error: '%s' is a keyword and cannot name a tensor" k))
  | _ -> raise (Syntax (t.line, t.col, Printf.sprintf "syntax error: expected %s, found %s" what (show t.tok)))

let expect_sym st c = if peek st = SYM c then advance st else error st (Printf.sprintf "'%c'" c)
let expect_int st = match peek st with INT v -> advance st; v | _ -> error st "an integer"
let expect_name st = match peek st with NAME x -> advance st; x | _ -> error st "a tensor name"

(* type = "[" [ INT { [","] INT } ] "]" *)
let parse_type st =
  expect_sym st '[';
  let rec more acc =
    match peek st with
    | SYM ']' -> advance st; List.rev acc
    | SYM ',' when acc <> [] -> advance st; more (expect_int st :: acc)
    | INT _ -> more (expect_int st :: acc)
    | _ -> error st "an integer or ']'" in
  more []

(* decl = KW [ "input" ] [ "output" ] NAME ":" type *)
let parse_decl st kw =
  if peek st <> KW kw then error st ("'" ^ kw ^ "'");
  advance st;
  let inp = if peek st = KW "input" then (advance st; true) else false in
  let out = if peek st = KW "output" then (advance st; true) else false in
  let x = expect_name st in
  expect_sym st ':';
  let t = parse_type st in
  { d_name = x; d_type = t; d_input = inp; d_output = out }

(* program = { decl } { NAME "=" expr } EOF *)
let parse_program st kw (expr : st -> 'e) : decl list * (string * 'e) list =
  let decls = ref [] and stmts = ref [] in
  while peek st = KW kw do decls := parse_decl st kw :: !decls done;
  while peek st <> EOF do
    if peek st = KW kw then
      raise (Syntax (st.toks.(st.pos).line, st.toks.(st.pos).col,
                     "syntax error: declaration after statement"));
    let x = expect_name st in
    expect_sym st '=';
    stmts := (x, expr st) :: !stmts
  done;
  List.rev !decls, List.rev !stmts

(* R-GR-3: parenthesis nesting and expression height are limited to 1000, as in
   the C front end; [height] is the height of the expression parsed last. *)
let max_depth = 1000
let nest = ref 0
let height = ref 0

let too_deep st =
  raise (Syntax (st.toks.(st.pos).line, st.toks.(st.pos).col, "syntax error: expression nested too deeply"))

let set_height st h = if h > max_depth then too_deep st else height := h

let open_paren st = incr nest; if !nest > max_depth then too_deep st

let operand_check st =
  match peek st, peek2 st with
  | NAME _, SYM '=' -> error st "an operand (found the start of a statement)"
  | _ -> ()

(* ---- TeIL (R-GR-3) ---- *)

let rec teil_expr st : expr =
  match peek st with
  | KW ("add" | "sub" | "mul" | "div" | "prod" as op) ->
      advance st;
      let a = teil_atom st in
      let ha = !height in
      let b = teil_atom st in
      set_height st (1 + max ha !height);
      (match op with
       | "add" -> EAdd (a, b) | "sub" -> ESub (a, b) | "mul" -> EMul (a, b)
       | "div" -> EDiv (a, b) | _ -> EProd (a, b))
  | KW "red+" ->
      advance st; let i = expect_int st in
      let e = teil_atom st in set_height st (1 + !height); ERed (i, e)
  | KW ("transp" | "diag" | "contr" | "expa" | "proj" as op) ->
      advance st;
      let i = expect_int st in
      let j = expect_int st in
      let e = teil_atom st in
      set_height st (1 + !height);
      (match op with
       | "transp" -> ETransp (i, j, e) | "diag" -> EDiag (i, j, e)
       | "contr" -> EContr (i, j, e) | "expa" -> EExpa (i, j, e) | _ -> EProj (i, j, e))
  | _ -> teil_atom st

and teil_atom st : expr =
  operand_check st;
  match peek st with
  | NAME x -> advance st; height := 0; EVar x
  | SYM '(' ->
      advance st; open_paren st;
      let e = teil_expr st in expect_sym st ')'; decr nest; EParen e
  | _ -> error st "an operand (a name or '(')"

let parse_teil (src : string) : prog =
  let st = { toks = lex ~model:false src; pos = 0 } in
  let ds, ss = parse_program st "alloc" teil_expr in
  { p_decls = ds; p_stmts = ss }

(* ---- model language (R-GR-5): no precedence, left associative ---- *)

let rec model_expr st : mexpr =
  let rec loop acc h =
    match peek st with
    | SYM ('+' | '-' | '*' | '/' | '#' as c) ->
        advance st;
        let b = model_primary st in
        let h = 1 + max h !height in
        if h > max_depth then too_deep st;
        loop (match c with
              | '+' -> MBin (MAdd, acc, b) | '-' -> MBin (MSub, acc, b)
              | '*' -> MBin (MMul, acc, b) | '/' -> MBin (MDiv, acc, b)
              | _ -> MOuter (acc, b)) h
    | SYM ('.' | '^' as c) ->
        advance st; expect_sym st '[';
        let m = expect_int st in
        if peek st = SYM ',' then advance st;
        let n = expect_int st in
        expect_sym st ']';
        if h + 1 > max_depth then too_deep st;
        loop (if c = '.' then MContr (acc, m, n) else MTransp (acc, m, n)) (h + 1)
    | _ -> height := h; acc in
  let first = model_primary st in
  loop first !height

and model_primary st : mexpr =
  operand_check st;
  match peek st with
  | NAME x -> advance st; height := 0; MVar x
  | SYM '(' ->
      advance st; open_paren st;
      let e = model_expr st in expect_sym st ')'; decr nest; MParen e
  | _ -> error st "an operand (a name or '(')"

let parse_model (src : string) : mprog =
  let st = { toks = lex ~model:true src; pos = 0 } in
  let ds, ss = parse_program st "var" model_expr in
  { mp_decls = ds; mp_stmts = ss }

(* ---- messages for the checker's errors (spec/typing.md wording) ---- *)

let show_type t = "[" ^ String.concat ", " (List.map string_of_int t) ^ "]"

let show_op ~model = function
  | OpAdd -> if model then "+" else "add" | OpSub -> if model then "-" else "sub"
  | OpMul -> if model then "*" else "mul" | OpDiv -> if model then "/" else "div"
  | OpProd -> if model then "#" else "prod"
  | OpRed i -> Printf.sprintf "red+ %d" i
  | OpTransp (i, j) -> if model then Printf.sprintf "^[%d %d]" i j else Printf.sprintf "transp %d %d" i j
  | OpDiag (i, j) -> Printf.sprintf "diag %d %d" i j
  | OpExpa (i, n) -> Printf.sprintf "expa %d %d" i n
  | OpProj (i, m) -> Printf.sprintf "proj %d %d" i m
  | OpContr (i, j) -> if model then Printf.sprintf ".[%d %d]" i j else Printf.sprintf "contr %d %d" i j

let show_err ~model (e : terr) : string =
  let op = show_op ~model in
  match e with
  | ErrUndeclared x -> Printf.sprintf "use of undeclared tensor '%s'" x
  | ErrMismatch (o, t0, t1) ->
      Printf.sprintf "type mismatch in %s (operand types %s and %s)" (op o) (show_type t0) (show_type t1)
  | ErrPosition (o, p, t) ->
      Printf.sprintf "position %d out of range in %s (operand type %s)" p (op o) (show_type t)
  | ErrEqualPos o -> Printf.sprintf "equal positions in %s" (op o)
  | ErrExtents (o, t) ->
      Printf.sprintf "type mismatch in %s (extents differ; operand type %s)" (op o) (show_type t)
  | ErrExtentZero o -> Printf.sprintf "extent must be at least 1 (in %s)" (op o)
  | ErrIndex (o, m, t) ->
      Printf.sprintf "index %d out of range in %s (operand type %s)" m (op o) (show_type t)
  | ErrTooLarge t -> Printf.sprintf "type too large: %s has more than 2^59 elements" (show_type t)
  | ErrAssignUndeclared x -> Printf.sprintf "assignment to undeclared tensor '%s'" x
  | ErrAssignMismatch (x, t, u) ->
      Printf.sprintf "type mismatch in assignment to '%s' ('%s' has type %s but the right-hand side has type %s)"
        x x (show_type t) (show_type u)
  | ErrRedeclared x -> Printf.sprintf "redeclaration of '%s'" x
  | ErrDeclExtentZero x -> Printf.sprintf "extent must be at least 1 (declaration of '%s')" x
  | ErrDeclTooLarge (x, t) ->
      Printf.sprintf "type too large: '%s' : %s has more than 2^59 elements" x (show_type t)
