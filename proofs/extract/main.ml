(* teil-spec: command line around the extracted checker and evaluator
   (hand-written, unverified; see proofs/README.md).

     teil-spec --check PROG [--lang teil|model]
     teil-spec PROG [--lang teil|model] --in NAME=F.npy ... --out NAME=F.npy ...
               [--pad M] [--print]

   Exit codes: 0 ok; 1 program not well-formed (one line on stderr says why);
   2 usage or I/O error; 3 internal error (should not happen: exec_prog_total). *)

open Teil_core

let die code fmt = Printf.ksprintf (fun s -> prerr_endline ("teil-spec: " ^ s); exit code) fmt

let usage () =
  die 2 "usage: teil-spec --check PROG [--lang teil|model] | teil-spec PROG [--lang teil|model] \
         --in NAME=F.npy ... --out NAME=F.npy ... [--pad M] [--print]"

let split_eq s =
  match String.index_opt s '=' with
  | Some i when i > 0 -> String.sub s 0 i, String.sub s (i + 1) (String.length s - i - 1)
  | _ -> die 2 "expected NAME=FILE, got '%s'" s

let () =
  let check = ref false and prog = ref None and lang = ref None and pad = ref None
  and print = ref false and ins = ref [] and outs = ref [] in
  let rec args = function
    | [] -> ()
    | "--check" :: r -> check := true; args r
    | "--print" :: r -> print := true; args r
    | "--lang" :: l :: r -> lang := Some l; args r
    | "--in" :: a :: r -> ins := split_eq a :: !ins; args r
    | "--out" :: a :: r -> outs := split_eq a :: !outs; args r
    | "--pad" :: m :: r ->
        (match int_of_string_opt m with
         | Some v when v >= 1 && v <= 1 lsl 20 && String.for_all Front.is_digit m -> pad := Some v
         | _ -> die 2 "invalid --pad value '%s' (need an integer in 1..2^20)" m);
        args r
    | a :: r when String.length a > 7 && String.sub a 0 7 = "--lang=" ->
        lang := Some (String.sub a 7 (String.length a - 7)); args r
    | ("-h" | "--help") :: _ -> usage ()
    | a :: _ when String.length a > 0 && a.[0] = '-' -> die 2 "unknown option '%s'" a
    | a :: r -> if !prog <> None then usage (); prog := Some a; args r in
  args (List.tl (Array.to_list Sys.argv));
  let file = match !prog with Some f -> f | None -> usage () in
  let model =
    match !lang with
    | Some "teil" -> false
    | Some "model" -> true
    | Some l -> die 2 "invalid --lang value '%s' (teil or model)" l
    | None ->
        if Filename.check_suffix file ".teil" then false
        else if Filename.check_suffix file ".tm" || Filename.check_suffix file ".tml" then true
        else die 2 "%s: cannot tell the language (use .teil, .tm/.tml or --lang)" file in
  let src = try Npy.read_file file with Npy.Npy_error m -> die 2 "%s" m in
  (* parse, translate the model language to TeIL (Coq [tr_prog]), check *)
  let p =
    try if model then tr_prog (Front.parse_model src) else Front.parse_teil src
    with Front.Syntax (l, c, m) -> Printf.eprintf "%s:%d:%d: error: %s\n" file l c m; exit 1 in
  (match check_prog p with
   | Some err -> Printf.eprintf "%s: error: %s\n" file (Front.show_err ~model err); exit 1
   | None -> ());
  if !check then exit 0;
  let decls = p.p_decls in
  let decl x = match find_decl decls x with Some d -> d | None -> die 2 "no tensor named '%s'" x in
  (* inputs (DECISIONS 8): every input tensor needs --in; values are doubles *)
  let tbl = Hashtbl.create 8 in
  List.iter (fun (x, f) ->
      let d = decl x in
      if not (is_input decls d) then die 2 "'%s' is not an input tensor" x;
      let shape, data = try Npy.read f with Npy.Npy_error m -> die 2 "%s" m in
      if shape <> d.d_type then
        die 2 "%s: shape %s does not match the type of '%s' %s" f
          (Front.show_type shape) x (Front.show_type d.d_type);
      Hashtbl.replace tbl x data) (List.rev !ins);
  List.iter (fun d ->
      if is_input decls d && not (Hashtbl.mem tbl d.d_name) then
        die 2 "missing input '%s' (use --in %s=FILE.npy)" d.d_name d.d_name) decls;
  let flat t k =   (* row-major position of the 1-based index list k in type t *)
    List.fold_left2 (fun acc d i -> acc * d + (i - 1)) 0 t k in
  let inp x k =
    match Hashtbl.find_opt tbl x, find_decl decls x with
    | Some a, Some d -> num a.(flat d.d_type k)
    | _ -> undef in
  let mu = match (match !pad with None -> run inp p | Some m -> run_padded m inp p) with
    | Some mu -> mu
    | None -> die 3 "internal error: evaluation of a well-formed program failed" in
  let value x t =
    Array.of_list (List.map (function
        | Some (Num v) -> Some (Obj.magic v : float)
        | Some Undef -> None
        | None -> die 3 "internal error: '%s' read outside its domain" x) (read mu x t)) in
  let outs = List.rev !outs in
  List.iter (fun (x, f) ->
      let d = decl x in
      let v = value x d.d_type in
      try Npy.write f d.d_type (Array.map (function Some v -> v | None -> Float.nan) v)
      with Npy.Npy_error m -> die 2 "%s" m) outs;
  if !print then begin
    let names = if outs <> [] then List.map fst outs
      else List.map (fun d -> d.d_name) (List.filter (is_output decls) decls) in
    List.iter (fun x ->
        let d = decl x in
        if List.length names > 1 then Printf.printf "== %s %s\n" x (Front.show_type d.d_type);
        Array.iter (function
            | Some v when Float.is_nan v -> print_string "nan\n"
            | Some v -> Printf.printf "%.17g\n" v
            | None -> print_string "_\n") (value x d.d_type)) names
  end
