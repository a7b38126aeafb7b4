package org.apache.flink.table.types.logical;
public final class VarBinaryType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final int length;
  public VarBinaryType(boolean nullable, int length) { super(nullable, LogicalTypeRoot.VARBINARY); this.length = length; }
}
