//===- SeqOps.td - The seq dialect and its ops -------------*- tablegen -*-===//
//
// The `seq` dialect holds sequence alignment jobs (AGAThA, docs/align.md):
// what to align and how to score it. `sluicec --run` runs a `seq.align` on
// the runtime's anti-diagonal wavefront kernel (sluice/align.h).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_SEQ_OPS
#define SLUICE_SEQ_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Seq_Dialect : Dialect {
  let name = "seq";
  let cppNamespace = "::sluice::seq";
  let summary = "Sequence alignment jobs";
  let description = [{
    A `seq.align` is one `align` job of a program: guided (banded, Z-drop)
    extension alignment of each record of a query FASTA file against the
    record at the same position of a target FASTA file, with minimap2's
    affine-gap scoring.
  }];
}

class Seq_Op<string mnemonic, list<Trait> traits = []>
    : Op<Seq_Dialect, mnemonic, traits>;

def Seq_AlignOp : Seq_Op<"align", [Symbol]> {
  let summary = "A guided extension alignment job over two FASTA files";
  let description = [{
    Aligns record k of `query` against record k of `target` (paths as the
    program wrote them, resolved against the program's directory) from
    their first bases: `match` (> 0) per matching base, minus `mismatch`
    (> 0) per other pair, minus `gap_open + L * gap_extend` per gap of
    length L; cells more than `band` (>= 1) off the diagonal are not
    computed, and the alignment stops when the best score of an
    anti-diagonal falls `zdrop` (negative: never) plus `gap_extend` per
    base of diagonal drift below the best so far. Scores are at most 255
    (as in minimap2's int8 matrices). `threads` (0: every hardware thread)
    run the pairs; `output` (may be empty) receives one TSV line per pair.

    ```mlir
    seq.align @map query "reads.fa" target "ref.fa" match 2 mismatch 4
        gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output "aln.tsv"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$query,
                       StrAttr:$target, I32Attr:$match, I32Attr:$mismatch,
                       I32Attr:$gap_open, I32Attr:$gap_extend, I32Attr:$band,
                       I32Attr:$zdrop, I32Attr:$threads, StrAttr:$output);
  let assemblyFormat = [{
    $sym_name `query` $query `target` $target `match` $match
    `mismatch` $mismatch `gap_open` $gap_open `gap_extend` $gap_extend
    `band` $band `zdrop` $zdrop `threads` $threads `output` $output attr-dict
  }];
  let hasVerifier = 1;
}

#endif // SLUICE_SEQ_OPS
