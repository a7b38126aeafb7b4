package org.apache.flink.table.types.logical;
public final class VarCharType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final int length;
  public VarCharType(boolean nullable, int length) { super(nullable, LogicalTypeRoot.VARCHAR); this.length = length; }
}
