(* Minimal .npy reader/writer (hand-written, not verified).
   Reads format 1.0-3.0, little-endian '<f8' or '<f4', C order.
   Writes format 1.0, '<f8', C order. *)

exception Npy_error of string

let fail fmt = Printf.ksprintf (fun s -> raise (Npy_error s)) fmt

let read_file path =
  let ic = try open_in_bin path with Sys_error m -> fail "%s" m in
  Fun.protect ~finally:(fun () -> close_in_noerr ic) (fun () ->
    really_input_string ic (in_channel_length ic))

(* Number of occurrences of [sub] in [s]. *)
let count_sub s sub =
  let n = String.length sub and c = ref 0 in
  for i = 0 to String.length s - n do if String.sub s i n = sub then incr c done;
  !c

(* Value of key [k] in the header dict, as raw text up to the next ',' at depth 0.
   Each key must occur exactly once. *)
let dict_value header k =
  let key = "'" ^ k ^ "'" in
  if count_sub header key > 1 then fail "header repeats the key %s" key;
  let kl = String.length key and hl = String.length header in
  let rec find i =
    if i + kl > hl then fail "header has no %s" key
    else if String.sub header i kl = key then i + kl else find (i + 1) in
  let i = ref (find 0) in
  while !i < hl && (header.[!i] = ' ' || header.[!i] = ':') do incr i done;
  let start = !i and depth = ref 0 in
  while !i < hl && not (!depth = 0 && (header.[!i] = ',' || header.[!i] = '}')) do
    (match header.[!i] with '(' -> incr depth | ')' -> decr depth | _ -> ());
    incr i
  done;
  String.trim (String.sub header start (!i - start))

let parse_shape s =
  let n = String.length s in
  if n < 2 || s.[0] <> '(' || s.[n - 1] <> ')' then fail "bad shape %s" s;
  String.sub s 1 (n - 2) |> String.split_on_char ','
  |> List.map String.trim |> List.filter (fun x -> x <> "")
  |> List.map (fun x -> match int_of_string_opt x with
                        | Some v when v >= 0 && x <> "" && String.for_all (fun c -> c >= '0' && c <= '9') x -> v
                        | _ -> fail "bad shape %s" s)

(* Returns (shape, data in row-major order). *)
let read path : int list * float array =
  let s = read_file path in
  let len = String.length s in
  if len < 10 || String.sub s 0 6 <> "\147NUMPY" then fail "%s: not a .npy file" path;
  let major = Char.code s.[6] in
  let hlen, hstart =
    match major with
    | 1 -> Char.code s.[8] lor (Char.code s.[9] lsl 8), 10
    | 2 | 3 ->
        if len < 12 then fail "%s: truncated header" path;
        Int32.to_int (String.get_int32_le s 8), 12
    | v -> fail "%s: unsupported .npy version %d" path v in
  if hstart + hlen > len then fail "%s: truncated header" path;
  let header = String.sub s hstart hlen in
  (* exactly the three keys of the format: descr, fortran_order, shape *)
  if String.length (String.trim header) < 2 || count_sub header ":" <> 3 then fail "%s: the header must hold exactly the keys 'descr', 'fortran_order' and 'shape'" path;
  let descr = dict_value header "descr" in
  let size = match descr with
    | "'<f8'" -> 8 | "'<f4'" -> 4
    | d -> fail "%s: unsupported dtype %s (need '<f8' or '<f4')" path d in
  if dict_value header "fortran_order" <> "False" then fail "%s: Fortran order not supported" path;
  let shape = parse_shape (dict_value header "shape") in
  let count = List.fold_left ( * ) 1 shape in
  let off = hstart + hlen in
  if off + count * size > len then fail "%s: truncated data" path;
  if off + count * size < len then fail "%s: %d unexpected bytes after the data" path (len - off - count * size);
  let get i =
    if size = 8 then Int64.float_of_bits (String.get_int64_le s (off + 8 * i))
    else Int32.float_of_bits (String.get_int32_le s (off + 4 * i)) in
  shape, Array.init count get

let write path (shape : int list) (data : float array) =
  let shp = match shape with
    | [] -> "()" | [d] -> Printf.sprintf "(%d,)" d
    | l -> "(" ^ String.concat ", " (List.map string_of_int l) ^ ")" in
  let dict = Printf.sprintf "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" shp in
  let total = 10 + String.length dict + 1 in
  let pad = (64 - total mod 64) mod 64 in
  let header = dict ^ String.make pad ' ' ^ "\n" in
  let b = Buffer.create (10 + String.length header + 8 * Array.length data) in
  Buffer.add_string b "\147NUMPY\001\000";
  Buffer.add_char b (Char.chr (String.length header land 0xff));
  Buffer.add_char b (Char.chr (String.length header lsr 8));
  Buffer.add_string b header;
  Array.iter (fun x -> Buffer.add_int64_le b (Int64.bits_of_float x)) data;
  let oc = try open_out_bin path with Sys_error m -> fail "%s" m in
  Fun.protect ~finally:(fun () -> close_out_noerr oc) (fun () -> Buffer.output_buffer oc b)
