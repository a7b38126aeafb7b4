package org.apache.flink.table.types.logical;
public final class TinyIntType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public TinyIntType(boolean nullable) { super(nullable, LogicalTypeRoot.TINYINT); }
}
