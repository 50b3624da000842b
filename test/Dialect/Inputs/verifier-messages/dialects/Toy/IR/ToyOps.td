// A dialect for check-verifier-messages.py to audit (verifier-messages.test).
def Toy_BoxOp : Toy_Op<"box", []> {
}
def Toy_BallOp : Toy_Op<"ball", []> {
}
